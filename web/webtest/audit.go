// The audit log's world: every action the log records, done through the router.

package webtest

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"kashi/api"
	"kashi/models"
)

// NewAuditWorld is a BillWorld in which every action the audit log records was done once
// through the router, by the people who may (the admin "tester" unless said otherwise):
// logins and a failed one, a token made and revoked, a user added, disabled, enabled and
// given a new password, a password changed, a project added, archived and taken back, tags,
// a member's role, quotas set and changed, quota requests approved and rejected, a
// reservation booked and cancelled, a task cancelled and one released, the idle reclaim of a
// project, a pool configured and changed, a price, a billing plan with size classes, a bill
// issued and one adjusted, the billing settings, a node's hostname claimed by another machine,
// a join token made and the shared one
// revoked.
func NewAuditWorld(t *testing.T) BillWorld {
	t.Helper()
	w := NewBillWorld(t)
	ctx := context.Background()
	id := func(name string) string {
		p, err := w.Store.ProjectByName(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		return strconv.FormatInt(p.ID, 10)
	}
	do := func(role, path, body string) []byte {
		t.Helper()
		hdr := []string{}
		if role != "" {
			hdr = Bearer(w.Tokens[role])
		}
		r := w.Post(path, body, hdr...)
		if r.Code >= 300 {
			t.Fatalf("POST %s as %q = %d %s", path, role, r.Code, r.Body)
		}
		return r.Body.Bytes()
	}
	form := func(path string, v url.Values) {
		t.Helper()
		if r := w.Form(path, v); r.StatusCode >= 400 {
			t.Fatalf("POST %s = %d", path, r.StatusCode)
		}
	}
	at := func(d time.Duration) string { return T0.Add(d).Format(time.RFC3339) }
	vision, nlp := id("vision"), id("nlp")

	w.Login("tester", "pw-tester", "10.0.0.2")
	w.Login("tester", "wrong", "10.0.0.3")
	tok := Decode[struct{ ID int64 }](t, w.Post("/api/v1/tokens", `{"name":"laptop","scope":"read"}`))
	do("", fmt.Sprintf("/api/v1/tokens/%d/revoke", tok.ID), "{}")
	do("", "/api/v1/users", `{"name":"carol","password":"pw-carol-long","role":"user"}`)
	form("/people/carol/state", url.Values{"disabled": {"true"}})
	form("/people/carol/state", url.Values{"disabled": {"false"}})
	form("/people/carol/password", url.Values{"password": {"pw-carol-new"}})
	form("/people/carol/unix-account", url.Values{"unix_account": {"carol"}})
	// A sign-in mapping rule added and deleted (#38).
	form("/people/sso", url.Values{"method": {"oidc"}, "group": {"cv-team"}, "project": {"vision"}, "role": {"member"}})
	rules, err := w.Store.SSORules(ctx)
	if err != nil || len(rules) != 1 {
		t.Fatalf("sign-in rules = %v, %v", rules, err)
	}
	form(fmt.Sprintf("/people/sso/%d/delete", rules[0].ID), url.Values{})
	form("/people/sso", url.Values{"method": {"ldap"}, "group": {"cn=finance,ou=groups,dc=example,dc=org"}, "role": {"finance"}})
	// An LDAP user signs in with the finance group; leaving it, the directory's sync changes
	// their access without a sign-in.
	dora := models.ExternalIdentity{Method: models.SourceLDAP, ID: "uid=dora,ou=people,dc=example,dc=org", Name: "dora",
		Groups: []string{"cn=finance,ou=groups,dc=example,dc=org"}}
	if _, _, err := w.Store.SignInExternal(ctx, dora, nil, models.SessionLimits{Idle: time.Hour, Absolute: time.Hour}, T0); err != nil {
		t.Fatal(err)
	}
	dora.Groups = nil
	if err := w.Store.SyncExternal(ctx, dora, nil, T0); err != nil {
		t.Fatal(err)
	}
	// A password and chat ids are changed from a browser session only.
	own := w.LogIn("tester", "pw-tester", "10.0.0.4")
	if r := own.Form("/account/chat", url.Values{"chat_dingtalk": {"13800000000"}, "chat_feishu": {"ou_7F3A"}}); r.Code >= 400 {
		t.Fatalf("POST /account/chat = %d", r.Code)
	}
	if r := own.Form("/account/password", url.Values{"current": {"pw-tester"}, "password": {"pw-tester-new"}}); r.Code >= 400 {
		t.Fatalf("POST /account/password = %d", r.Code)
	}
	do("", "/api/v1/projects", `{"name":"speech","tags":["课题组 语音","CC-2201"]}`)
	do("", "/api/v1/projects/"+id("speech")+"/archive", `{"archived":true}`)
	do("", "/api/v1/projects/"+id("speech")+"/archive", `{"archived":false}`)
	do("", "/api/v1/projects/"+vision+"/tags", `{"tags":["cv","gpu-heavy"]}`)
	do("", "/api/v1/projects/"+vision+"/tags", `{"tags":["cv","课题组 视觉"]}`)
	do("", "/api/v1/projects/"+vision+"/members", `{"user":"carol","role":"member"}`)
	do("", "/api/v1/projects/"+vision+"/members", `{"user":"carol","role":"lead"}`)
	quota := `{"spec":"A100-80G","max_gpus":%d,"guaranteed_gpus":1,"budget_card_hours":500,"starts_at":"%s","ends_at":"%s",` +
		`"overflow_allowed":true,"overflow_rate_fen":2550,"remind_end_days":[14,7]}`
	do("", "/api/v1/projects/"+vision+"/quotas", fmt.Sprintf(quota, 4, at(-24*time.Hour), at(60*24*time.Hour)))
	do("", "/api/v1/projects/"+vision+"/quotas", fmt.Sprintf(quota, 8, at(-24*time.Hour), at(90*24*time.Hour)))
	ask := func(kind, change string) string {
		r := Decode[struct{ ID int64 }](t, w.Post("/api/v1/requests", fmt.Sprintf(`{"project":"vision","spec":"A100-80G","kind":%q,`+
			`"change":%s,"reason":"paper deadline"}`, kind, change), Bearer(w.Tokens["member"])...))
		return strconv.FormatInt(r.ID, 10)
	}
	do("", "/api/v1/requests/"+ask("limit", `{"max_gpus":12}`)+"/approve", `{"comment":"ok"}`)
	do("", "/api/v1/requests/"+ask("budget", `{"add_card_hours":100}`)+"/reject", `{"comment":"not this month"}`)
	do("", "/api/v1/requests/"+ask("reservation", fmt.Sprintf(`{"reserve_gpus":2,"reserve_begins":%q,"reserve_ends":%q}`,
		at(48*time.Hour), at(52*time.Hour)))+"/approve", `{"comment":"booked"}`)
	rs := Decode[[]struct{ ID int64 }](t, w.Get("/api/v1/reservations"))
	if len(rs) == 0 {
		t.Fatal("no reservation after approving one")
	}
	do("", fmt.Sprintf("/api/v1/reservations/%d/cancel", rs[0].ID), "{}")
	doomed := w.Create(Task("doomed").Of("vision").Ready(), T0.Add(-time.Hour))
	do("", fmt.Sprintf("/api/v1/tasks/%d/cancel", doomed.ID), "{}")
	// A pipeline submitted and cancelled.
	pipe := Decode[struct{ ID int64 }](t, w.Post("/api/v1/pipelines", `{"project":"vision","name":"audit-pipe","stages":[`+
		`{"name":"prep","gpus":1,"command":["prep"]},{"name":"train","after":["prep"],"gpus":1,"command":["train"]}]}`))
	do("", fmt.Sprintf("/api/v1/pipelines/%d/cancel", pipe.ID), "{}")
	idle := w.Create(Task("idler").Of("vision").Ready(), T0.Add(-2*time.Hour))
	w.Place(idle, T0.Add(-time.Hour), UUIDOf("a100-01", 3))
	do("", fmt.Sprintf("/api/v1/tasks/%d/release", idle.ID), "{}")
	do("", "/api/v1/projects/"+vision+"/reclaim", `{"idle_s":3600,"grace_s":900}`)
	pool := `{"provider":"sim","spec":"A100-80G","gpus_per_node":8,"enabled":true,"min_nodes":1,"max_nodes":%d,"boot_timeout_s":900,"memory_high_pct":85}`
	do("", "/api/v1/pools/a100", fmt.Sprintf(pool, 4))
	do("", "/api/v1/pools/a100", fmt.Sprintf(pool, 6))
	do("", "/api/v1/prices", `{"project":"nlp","spec":"A100-80G","from_month":"2026-04","rate_fen":1800,"overflow_rate_fen":2700}`)
	do("", "/api/v1/projects/"+nlp+"/plan", `{"from_month":"2026-04","mode":"per-task","size_classes":[`+
		`{"name":"small","max_card_hours":10,"price_fen":500},{"name":"large","max_card_hours":0,"price_fen":4000}]}`)
	do("finance", "/api/v1/bills/vision/"+BillMonth+"/issue", "{}")
	do("finance", "/api/v1/bills/nlp/2026-03/adjustments", `{"amount_fen":-5000,"reason":"outage credit","corrects_month":"2026-02"}`)
	do("", "/api/v1/billing/settings", `{"time_zone":"Asia/Shanghai","idle_util_pct":8,"active_util_pct":45}`)
	// A machine registering with a registered node's hostname is refused.
	claim := Node("gpu-audit").Cards(A100Name, A100MiB, 1)
	w.Register(claim)
	claim.R.GPUs[0].UUID = "GPU-audit-other"
	if r := w.Post(api.PathRegister, MustJSON(t, claim.R), Bearer(JoinToken)...); r.Code != http.StatusConflict {
		t.Fatalf("POST %s as another gpu-audit = %d %s, want 409", api.PathRegister, r.Code, r.Body)
	}
	do("", "/api/v1/join-tokens", `{"machine_id":"rack-7-node-3"}`)
	spare := Decode[struct{ ID int64 }](t, w.Post("/api/v1/join-tokens", `{"machine_id":"rack-7-node-4"}`))
	if r := w.Form(fmt.Sprintf("/join-tokens/%d/revoke", spare.ID), nil); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("revoke join token %d = %d, want 303", spare.ID, r.StatusCode)
	}
	do("", "/api/v1/join-tokens/shared/revoke", "{}")
	// A template changed and rolled back.
	tpl := Decode[struct{ ID int64 }](t, w.Post("/api/v1/projects/"+vision+"/templates", TrainTemplate))
	do("", fmt.Sprintf("/api/v1/templates/%d", tpl.ID), strings.Replace(TrainTemplate, `"gpus": 1`, `"gpus": 2`, 1))
	do("", fmt.Sprintf("/api/v1/templates/%d/rollback", tpl.ID), `{"version": 1}`)
	// The pool a100 stops after three machines failed to boot, and is resumed.
	p, err := w.Store.ConfiguredPoolByName(ctx, "a100")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		key := "boot-" + strconv.Itoa(i)
		if err := w.Store.RecordScaleUp(ctx, p.ID, []string{key}, models.ScalingEvent{Kind: "scale-up"}, T0.Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := w.Store.RecordBootFailure(ctx, models.BootFailure{PoolID: p.ID, Key: key, Reason: "boot-timeout", Limit: 3}, T0); err != nil {
			t.Fatal(err)
		}
	}
	do("", "/api/v1/pools/a100/resume", "{}")
	if r := w.Get("/audit"); r.Code != http.StatusOK {
		t.Fatalf("GET /audit = %d", r.Code)
	}
	return w
}
