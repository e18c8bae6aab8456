package web_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"kashi/models"
	"kashi/web/webtest"
)

// formStatuses are the answers a form post may get: done (303, or 200 through htmx), the
// form again with its problems (422), or a refusal before the form is read.
var formStatuses = map[int]bool{200: true, 303: true, 400: true, 403: true, 404: true, 413: true, 422: true}

// problemText is the text of the elements with the given data-testid values in a page.
func problemText(t *testing.T, page string, testids ...string) string {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, id := range testids {
		doc.Find(`[data-testid="` + id + `"]`).Each(func(_ int, s *goquery.Selection) {
			b.WriteString(strings.TrimSpace(s.Text()))
		})
	}
	return b.String()
}

func FuzzTaskForm(f *testing.F) {
	srv := fuzzServer(f)
	webtest.TaskFleet(srv)
	ok := url.Values{"project": {"vision"}, "name": {"ft"}, "owner": {"alice"}, "gpus": {"2"}, "specs": {"A100-80G"},
		"queue": {"long"}, "priority": {"high"}, "est_gpu_hours": {"3.5"}, "max_runtime_h": {"4"},
		"command": {"python\r\ntrain.py\r\n"}, "env": {"A=1\nB=x=y\n"}, "workdir": {"/w"}, "data_ready": {"on"}}
	with := func(kv ...string) string {
		v := url.Values{}
		for k, vs := range ok {
			v[k] = vs
		}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v.Encode()
	}
	for _, s := range []string{
		with(), with("idempotency_key", "k1"), with("gpus", "0"), with("gpus", "9223372036854775808"),
		with("gpus", "1e3"), with("max_runtime_h", "NaN"), with("max_runtime_h", "1e308"), with("est_gpu_hours", "-Inf"),
		with("queue", "short", "max_runtime_h", "3"), with("env", "=x\nA\n"), with("env", "A=\x00"),
		with("command", "\r\n\r\n"), with("command", "\xff"), with("specs", "H800-80G", "gpus", "8"), with("regions", "cn-east"),
		ok.Encode() + "&specs=H800-80G", ok.Encode() + "&specs=A100-80G", ok.Encode() + "&regions=a&regions=a",
		with("project", "nope"), with("project", "\xff"), with("project", "a\x00"), with("data_check", "http://127.0.0.1/"), with("data_ready", "", "data_check", "/etc"),
		with("priority", "urgent", "deferrable", "on"), "project=%zz", "a=b;c=d", "", "=&=&&",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, body []byte, htmx bool) {
		s := srv.With(t)
		last := newestTask(t, s)
		w := s.PostForm("/queue/tasks", s.Token, string(body), htmx)
		if !formStatuses[w.Code] {
			t.Fatalf("POST /queue/tasks = %d %s, want a form answer", w.Code, w.Body)
		}
		newest := newestTask(t, s)
		switch w.Code {
		case http.StatusOK, http.StatusSeeOther:
			vals, _ := url.ParseQuery(string(body))
			if newest == last && vals.Get("idempotency_key") == "" {
				t.Fatalf("POST /queue/tasks = %d stored no task", w.Code)
			}
			return
		case http.StatusUnprocessableEntity:
			if problemText(t, w.Body.String(), "field-error", "form-error") == "" {
				t.Fatalf("POST /queue/tasks = 422 naming no field:\n%s", w.Body)
			}
		}
		if newest != last {
			t.Fatalf("POST /queue/tasks = %d stored task %d", w.Code, newest)
		}
	})
}

// quotaServer is a server with project "vision" (a quota for A100-80G and one for any spec)
// and "other", and the token of a member of vision only.
func quotaServer(f *testing.F) (*webtest.Server, string) {
	srv := fuzzServer(f)
	srv.Projects("vision", "other")
	ctx := context.Background()
	p, err := srv.Store.ProjectByName(ctx, "vision")
	if err != nil {
		f.Fatal(err)
	}
	for _, spec := range []string{"", "A100-80G"} {
		if _, err := srv.Store.SetQuota(ctx, "admin", models.Quota{ProjectID: p.ID, Spec: spec, MaxGPUs: 8, BudgetCardHours: 100,
			StartsAt: webtest.T0.Add(-time.Hour), EndsAt: webtest.T0.Add(30 * 24 * time.Hour)}, webtest.T0); err != nil {
			f.Fatal(err)
		}
	}
	return srv, srv.Member("mia", "vision")
}

// requestCount is how many quota requests are stored.
func requestCount(t *testing.T, s *webtest.Server) int {
	t.Helper()
	rows, err := s.Store.QuotaRequests(context.Background(), nil, "")
	if err != nil {
		t.Fatalf("QuotaRequests: %v", err)
	}
	return len(rows)
}

func FuzzQuotaRequestJSON(f *testing.F) {
	srv, member := quotaServer(f)
	for _, s := range []string{
		`{"project":"vision","kind":"limit","change":{"max_gpus":16},"reason":"more"}`,
		`{"project":"vision","spec":"A100-80G","kind":"budget","change":{"add_card_hours":10},"reason":"r"}`,
		`{"project":"vision","kind":"budget","change":{"add_card_hours":9223372036854775807},"reason":"r"}`,
		`{"project":"vision","kind":"extend","change":{"ends_at":"2026-05-01T00:00:00Z"},"reason":"r"}`,
		`{"project":"vision","kind":"extend","change":{"ends_at":"0001-01-01T00:00:00Z"},"reason":"r"}`,
		`{"project":"vision","kind":"override","change":{"override_max_gpus":4,"override_begins":"2026-03-03T00:00:00Z","override_ends":"2026-03-04T00:00:00Z"},"reason":"r"}`,
		`{"project":"vision","kind":"override","change":{"override_max_gpus":4,"override_begins":"2026-03-04T00:00:00Z","override_ends":"2026-03-03T00:00:00Z"},"reason":"r"}`,
		`{"project":"vision","kind":"limit","change":{"max_gpus":-1},"reason":"r"}`,
		`{"project":"vision","kind":"limit","change":{"max_gpus":1},"reason":"a\u0000"}`,
		`{"project":"vision","kind":"limit","change":{"max_gpus":1},"reason":"\xff"}`,
		`{"project":"other","kind":"limit","change":{"max_gpus":1},"reason":"r"}`,
		`{"project":"vision","spec":"H800-80G","kind":"limit","change":{"max_gpus":1},"reason":"r"}`,
		`{"project":"vision","kind":"nope","reason":"r"}`, `{"project":"vision","kind":"limit","change":[]}`,
		`{}`, `[]`, `null`, ``, `{"project":"vision"} {}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		s := srv.With(t)
		n := requestCount(t, s)
		w := s.Post("/api/v1/requests", string(body), webtest.Bearer(member)...)
		if w.Code == http.StatusCreated {
			if requestCount(t, s) != n+1 {
				t.Fatalf("POST /api/v1/requests = 201 stored %d requests, want 1", requestCount(t, s)-n)
			}
			return
		}
		checkAPIError(t, "POST /api/v1/requests", w.Code, w.Body.String())
		if got := requestCount(t, s); got != n {
			t.Fatalf("POST /api/v1/requests = %d stored %d requests", w.Code, got-n)
		}
		if w.Code == http.StatusUnprocessableEntity {
			e := webtest.Decode[struct{ Field string }](t, w)
			if e.Field == "" {
				t.Fatalf("POST /api/v1/requests = 422 %s naming no field", w.Body)
			}
		}
	})
}

func FuzzQuotaRequestForm(f *testing.F) {
	srv, member := quotaServer(f)
	for _, s := range []url.Values{
		{"project": {"vision"}, "kind": {"limit"}, "value": {"16"}, "reason": {"more"}},
		{"project": {"vision"}, "spec": {"A100-80G"}, "kind": {"budget"}, "value": {"9999999999"}, "reason": {"r"}},
		{"project": {"vision"}, "kind": {"extend"}, "ends": {"2026-05-01T00:00"}, "reason": {"r"}},
		{"project": {"vision"}, "kind": {"extend"}, "ends": {"0000-01-01T00:00"}, "reason": {"r"}},
		{"project": {"vision"}, "kind": {"override"}, "value": {"4"}, "begins": {"2026-03-03T00:00"}, "ends": {"2026-03-04T00:00"}, "reason": {"r"}},
		{"project": {"vision"}, "kind": {"override"}, "value": {"4"}, "begins": {"x"}, "reason": {"r"}},
		{"project": {"vision"}, "kind": {"limit"}, "value": {"1"}, "reason": {"a\x00"}},
		{"project": {"other"}, "kind": {"limit"}, "value": {"1"}, "reason": {"r"}},
		{"project": {"nope"}, "kind": {"nope"}},
	} {
		f.Add([]byte(s.Encode()))
	}
	f.Add([]byte("project=%zz"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, body []byte) {
		s := srv.With(t)
		n := requestCount(t, s)
		w := s.PostForm("/projects/requests", member, string(body), false)
		if !formStatuses[w.Code] || w.Code == http.StatusOK {
			t.Fatalf("POST /projects/requests = %d %s, want a form answer", w.Code, w.Body)
		}
		want := n
		if w.Code == http.StatusSeeOther {
			want++
		}
		if got := requestCount(t, s); got != want {
			t.Fatalf("POST /projects/requests = %d stored %d requests", w.Code, got-n)
		}
		if w.Code == http.StatusUnprocessableEntity && problemText(t, w.Body.String(), "request-error") == "" {
			t.Fatalf("POST /projects/requests = 422 with no problem shown:\n%s", w.Body)
		}
	})
}
