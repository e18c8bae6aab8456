package pools_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"kashi/models"
	"kashi/web/webtest"
)

// TestPoolFailingShown: a pool stopped after boot failures reads "failing" with its reason
// in the API and on the page, in both languages, with the resume button for admins only; a
// pool backing off says when it asks again.
func TestPoolFailingShown(t *testing.T) {
	s := webtest.NewPoolServer(t)
	s.FailBoots("k", 3)

	p := webtest.Decode[[]map[string]any](t, s.Get("/api/v1/pools"))[0]
	boot, _ := p["boot"].(map[string]any)
	if p["state"] != "failing" || boot["failing"] != true || boot["failures"] != 3.0 || boot["limit"] != 3.0 ||
		boot["failing_since"] != webtest.T0.Format(time.RFC3339) || boot["last_failure_at"] != webtest.T0.Format(time.RFC3339) ||
		boot["last_failure_reason"] != "boot-timeout" || boot["retry_at"] != nil ||
		boot["last_failure"] != "machine i-k3 (k3) did not register within 15m (asked 16m ago)" {
		t.Errorf("pool = state %v, boot %v; want failing after 3 boot timeouts of 3", p["state"], boot)
	}

	doc := webtest.Parse(t, s.Get("/pools").Body.String())
	if got := doc.Find(`[data-testid=pool-state]`).Text(); got != "failing: machines do not boot" {
		t.Errorf("en state = %q", got)
	}
	block := doc.Find(`[data-testid=pool-failing]`)
	text := strings.Join(strings.Fields(block.Text()), " ")
	for _, want := range []string{"Stopped creating machines at 09:00:00: 3 machines in a row did not boot (limit 3).",
		"Last failure, 09:00:00: machine i-k3 (k3) did not register within 15m (asked 16m ago)", "Resume"} {
		if !strings.Contains(text, want) {
			t.Errorf("en failing block %q lacks %q", text, want)
		}
	}
	form := block.Find(`form[action="/pools/a100/resume"]`)
	if form.Length() != 1 || form.Find(`input[name=_csrf]`).Length() != 1 || form.AttrOr("data-confirm", "") == "" {
		t.Errorf("failing block lacks the resume form with CSRF and a confirmation")
	}

	zh := webtest.Parse(t, s.Get("/pools", "Accept-Language", "zh-CN").Body.String())
	if got := zh.Find(`[data-testid=pool-state]`).Text(); got != "故障：机器无法启动" {
		t.Errorf("zh state = %q", got)
	}
	zhText := strings.Join(strings.Fields(zh.Find(`[data-testid=pool-failing]`).Text()), " ")
	for _, want := range []string{"自 09:00:00 起停止创建机器：连续 3 台机器未能启动（上限 3 台）。", "机器 i-k3 (k3) 未在 15分钟 内注册", "恢复"} {
		if !strings.Contains(zhText, want) {
			t.Errorf("zh failing block %q lacks %q", zhText, want)
		}
	}

	// A viewer reads why, without the button.
	viewer := s.UserToken("vera", models.RoleViewer)
	vdoc := webtest.Parse(t, s.Get("/pools", webtest.Bearer(viewer)...).Body.String())
	if vdoc.Find(`[data-testid=pool-resume]`).Length() != 0 || !strings.Contains(vdoc.Find(`[data-testid=pool-failing]`).Text(), "An admin resumes it") {
		t.Errorf("viewer's failing block = %q, want no resume button", vdoc.Find(`[data-testid=pool-failing]`).Text())
	}
}

func TestPoolBackingOffShown(t *testing.T) {
	s := webtest.NewPoolServer(t)
	s.FailBoots("k", 1)
	s.SetNow(webtest.T0.Add(5 * time.Minute))
	p := webtest.Decode[[]map[string]any](t, s.Get("/api/v1/pools"))[0]
	boot, _ := p["boot"].(map[string]any)
	if p["state"] == "failing" || boot["failing"] != false || boot["failures"] != 1.0 ||
		boot["retry_at"] != webtest.T0.Add(15*time.Minute).Format(time.RFC3339) {
		t.Errorf("pool = state %v, boot %v; want backing off until T0+15m", p["state"], boot)
	}
	block := webtest.Parse(t, s.Get("/pools").Body.String()).Find(`[data-testid=pool-failing][data-failing=false]`)
	if text := strings.Join(strings.Fields(block.Text()), " "); !strings.Contains(text,
		"1 machines in a row did not boot (limit 3); the next is asked for after 09:15:00.") || block.Find(`form`).Length() != 0 {
		t.Errorf("backing-off block = %q, want when it asks again and no resume button", text)
	}
	if n := webtest.Parse(t, webtest.NewPoolServer(t).Get("/pools").Body.String()).Find(`[data-testid=pool-failing]`).Length(); n != 0 {
		t.Errorf("a pool without boot failures shows %d failing blocks", n)
	}
}

// TestPoolResume: only an admin resumes a failing pool, from the page with its CSRF token or
// through the API; the resume is audited and wakes the scaling loop.
func TestPoolResume(t *testing.T) {
	s := webtest.NewPoolServer(t)
	s.FailBoots("k", 3)
	failing := func() bool {
		t.Helper()
		return webtest.Decode[[]map[string]any](t, s.Get("/api/v1/pools"))[0]["state"] == "failing"
	}
	s.Projects("vision")
	lead := s.MemberAs("lena", "vision", models.ProjectRoleLead)
	member := s.Member("mo", "vision")
	for who, tok := range map[string]string{"lead": lead, "member": member} {
		for _, path := range []string{"/pools/a100/resume", "/api/v1/pools/a100/resume"} {
			if w := s.Post(path, "", webtest.Bearer(tok)...); w.Code != http.StatusForbidden {
				t.Errorf("POST %s as %s = %d, want 403", path, who, w.Code)
			}
		}
	}

	// An admin's session: the form without its token is refused, with it accepted.
	login := s.Login("tester", "pw-tester", "10.0.0.9")
	if login.Code != http.StatusSeeOther {
		t.Fatalf("login = %d", login.Code)
	}
	var cookies []string
	for _, ck := range login.Result().Cookies() {
		cookies = append(cookies, ck.Name+"="+ck.Value)
	}
	page := s.Do(webtest.Req{Method: http.MethodGet, Path: "/pools", Hdr: map[string]string{"Authorization": "", "Cookie": strings.Join(cookies, "; ")}})
	token := webtest.Parse(t, page.Body.String()).Find(`form[action="/pools/a100/resume"] input[name=_csrf]`).AttrOr("value", "")
	for _, ck := range page.Result().Cookies() {
		if ck.Name == "_csrf" {
			cookies = append(cookies, ck.Name+"="+ck.Value)
		}
	}
	if token == "" {
		t.Fatal("the admin's page has no resume form with a CSRF token")
	}
	post := func(form url.Values) *http.Response {
		return s.Do(webtest.Req{Method: http.MethodPost, Path: "/pools/a100/resume", Body: form.Encode(), Hdr: map[string]string{
			"Authorization": "", "Cookie": strings.Join(cookies, "; "), "Content-Type": "application/x-www-form-urlencoded"}}).Result()
	}
	if resp := post(url.Values{}); resp.StatusCode != http.StatusForbidden {
		t.Errorf("resume without the CSRF token = %d, want 403", resp.StatusCode)
	}
	if !failing() {
		t.Fatal("a refused resume resumed the pool")
	}
	woken := s.Scales.Load()
	if resp := post(url.Values{"_csrf": {token}}); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/pools" {
		t.Fatalf("resume with the CSRF token = %d to %q, want 303 to /pools", resp.StatusCode, resp.Header.Get("Location"))
	}
	if failing() {
		t.Error("the pool still fails after the resume")
	}
	if s.Scales.Load() != woken+1 {
		t.Errorf("the resume woke the scaling loop %d times, want once", s.Scales.Load()-woken)
	}
	log, _ := s.Store.AuditLog(context.Background(), models.AuditFilter{Action: "pool-resume"})
	if len(log) != 1 || log[0].Actor != "tester" || log[0].Subject != "pool a100" || !strings.Contains(log[0].Before, `"boot_failures":3`) {
		t.Errorf("audit log = %+v, want tester's resume of pool a100 after 3 failures", log)
	}

	// Through the API: the pool as GET /api/v1/pools shows it; a pool without failures is
	// left alone (no second audit entry); an unknown pool is 404.
	s.FailBoots("again-", 3)
	w := s.Post("/api/v1/pools/a100/resume", "")
	if got := webtest.Decode[map[string]any](t, w); w.Code != http.StatusOK || got["state"] == "failing" || got["boot"].(map[string]any)["failures"] != 0.0 {
		t.Errorf("POST /api/v1/pools/a100/resume = %d %v, want the pool resumed", w.Code, got)
	}
	if w := s.Post("/api/v1/pools/a100/resume", ""); w.Code != http.StatusOK {
		t.Errorf("resuming a pool without failures = %d, want 200", w.Code)
	}
	if log, _ := s.Store.AuditLog(context.Background(), models.AuditFilter{Action: "pool-resume"}); len(log) != 2 {
		t.Errorf("audit entries = %d, want 2 (the page's and the API's resumes)", len(log))
	}
	if w := s.Post("/api/v1/pools/h100/resume", ""); w.Code != http.StatusNotFound {
		t.Errorf("resuming an unknown pool = %d, want 404", w.Code)
	}
}
