package pools_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"kashi/api"
	"kashi/models"
	"kashi/web/webtest"
)

// TestPoolNoQuotaForm: the pool form sets what projects without a quota on the pool's spec
// may use, as a choice in both languages, refusing a limit without cards and a value not
// offered beside their fields; a saved change is a version and audited, and the API refuses
// what the form does.
func TestPoolNoQuotaForm(t *testing.T) {
	s := webtest.NewPoolServer(t)
	ctx := context.Background()
	// A pool saved before the setting allows, and its form says so.
	for lang, want := range map[string]string{"en": "may use any number of cards", "zh-CN": "卡数不限"} {
		doc := webtest.Parse(t, s.Get("/pools/a100/edit", "Accept-Language", lang).Body.String())
		if got := strings.TrimSpace(doc.Find(`select[name=no_quota] option[selected]`).Text()); got != want {
			t.Errorf("%s: the form's no-quota choice reads %q, want %q", lang, got, want)
		}
		if n := doc.Find(`select[name=no_quota] option`).Length(); n != 3 {
			t.Errorf("%s: %d choices, want allowed, refused and limit", lang, n)
		}
	}
	form := func(policy, max string) url.Values {
		return url.Values{"provider": {"sim"}, "spec": {"A100-80G"}, "gpus_per_node": {"8"}, "max_nodes": {"6"},
			"enabled": {"on"}, "no_quota": {policy}, "no_quota_max_gpus": {max}}
	}
	for _, bad := range []struct{ policy, max, field string }{
		{"limit", "", "no_quota_max_gpus"}, {"limit", "0", "no_quota_max_gpus"}, {"limit", "100001", "no_quota_max_gpus"},
		{"limit", "two", "no_quota_max_gpus"}, {"sometimes", "", "no_quota"},
	} {
		resp := s.Form("/pools/a100", form(bad.policy, bad.max))
		doc := webtest.DocOf(t, resp)
		if n := doc.Find(`[data-testid=field-error][data-field=` + bad.field + `]`).Text(); resp.StatusCode != http.StatusUnprocessableEntity || strings.TrimSpace(n) == "" {
			t.Errorf("POST /pools/a100 with %s/%s = %d, error beside %s %q; want 422 beside it", bad.policy, bad.max, resp.StatusCode, bad.field, n)
		}
	}
	if resp := s.Form("/pools/a100", form("limit", "4")); resp.StatusCode >= 400 {
		t.Fatalf("POST /pools/a100 with a limit of 4 = %d", resp.StatusCode)
	}
	p, err := s.Store.ConfiguredPoolByName(ctx, "a100")
	if err != nil || p.Config.NoQuota != models.NoQuotaLimit || p.Config.NoQuotaMaxGPUs != 4 {
		t.Errorf("saved %q %d, %v; want a limit of 4", p.Config.NoQuota, p.Config.NoQuotaMaxGPUs, err)
	}
	doc := webtest.Parse(t, s.Get("/pools/a100/edit").Body.String())
	if v := doc.Find(`select[name=no_quota] option[selected]`).AttrOr("value", ""); v != "limit" {
		t.Errorf("the form shows %q, want limit", v)
	}
	if got := doc.Find(`[data-testid=pool-version]`).First().Text(); !strings.Contains(got, "may use a limited number of cards") {
		t.Errorf("the latest version reads %q, want the change in words", strings.Join(strings.Fields(got), " "))
	}
	entries, err := s.Store.AuditLog(ctx, models.AuditFilter{Action: "pool-config"})
	if err != nil || len(entries) == 0 || !strings.Contains(entries[0].After, `"no_quota":"limit"`) || !strings.Contains(entries[0].After, `"no_quota_max_gpus":4`) {
		t.Errorf("audit = %+v, %v; want the pool's change with its no-quota limit", entries, err)
	}
	w := s.Post("/api/v1/pools/a100", `{"provider":"sim","spec":"A100-80G","gpus_per_node":8,"max_nodes":6,"no_quota":"limit"}`)
	if e := webtest.Decode[api.Error](t, w); w.Code != http.StatusUnprocessableEntity || e.Field != "no_quota_max_gpus" {
		t.Errorf("POST /api/v1/pools/a100 with a limit of no cards = %d %v, want 422 on no_quota_max_gpus", w.Code, e)
	}
	w = s.Post("/api/v1/pools/a100", `{"provider":"sim","spec":"A100-80G","gpus_per_node":8,"max_nodes":6,"no_quota":"maybe"}`)
	if e := webtest.Decode[api.Error](t, w); w.Code != http.StatusUnprocessableEntity || e.Field != "no_quota" {
		t.Errorf("POST /api/v1/pools/a100 with no_quota maybe = %d %v, want 422 on no_quota", w.Code, e)
	}
}
