package pools_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"kashi/api"
	"kashi/web/webtest"
)

// TestPoolBootSettings: the pools form edits how many boot failures in a row stop a pool and
// the longest wait after one (in hours), refusing values out of range beside the field in both
// languages, and the API refuses them with 422 naming the field.
func TestPoolBootSettings(t *testing.T) {
	s := webtest.NewPoolServer(t)
	form := func(field, v string) url.Values {
		f := url.Values{"provider": {"sim"}, "spec": {"A100-80G"}, "gpus_per_node": {"8"}, "max_nodes": {"6"}, "enabled": {"on"}}
		f.Set(field, v)
		return f
	}
	for _, bad := range []struct{ field, value, msg string }{
		{"boot_failure_limit", "101", "must be 0 (default) to 100"},
		{"boot_failure_limit", "-1", "must be 0 (default) to 100"},
		{"boot_failure_limit", "three", "Enter a whole number."},
		{"boot_backoff_max_s", "721", "must be 0 (default) to 720 h"},
	} {
		resp := s.Form("/pools/a100", form(bad.field, bad.value))
		msg := webtest.DocOf(t, resp).Find(`[data-testid=field-error][data-field=` + bad.field + `]`).Text()
		if resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(msg, bad.msg) {
			t.Errorf("POST /pools/a100 with %s=%s = %d, error %q; want 422 with %q beside the field", bad.field, bad.value, resp.StatusCode, msg, bad.msg)
		}
	}
	resp := s.Form("/pools/a100", form("boot_failure_limit", "101"), "Accept-Language", "zh-CN")
	if msg := webtest.DocOf(t, resp).Find(`[data-testid=field-error][data-field=boot_failure_limit]`).Text(); !strings.Contains(msg, "停止前允许的启动失败次数") {
		t.Errorf("zh error beside boot_failure_limit = %q, want it named", msg)
	}
	f := form("boot_failure_limit", "5")
	f.Set("boot_backoff_max_s", "2")
	if resp := s.Form("/pools/a100", f); resp.StatusCode >= 400 {
		t.Fatalf("POST /pools/a100 with 5 failures and 2 h = %d", resp.StatusCode)
	}
	p, err := s.Store.ConfiguredPoolByName(context.Background(), "a100")
	if err != nil || p.Config.BootFailureLimit != 5 || p.Config.BootBackoffMaxS != 7200 {
		t.Errorf("saved = %d failures, %d s; %v; want 5 and 7200", p.Config.BootFailureLimit, p.Config.BootBackoffMaxS, err)
	}
	edit := webtest.Parse(t, s.Get("/pools/a100/edit").Body.String())
	if l, h := edit.Find(`[name=boot_failure_limit]`).AttrOr("value", ""), edit.Find(`[name=boot_backoff_max_s]`).AttrOr("value", ""); l != "5" || h != "2" {
		t.Errorf("the form shows %q failures and %q h, want 5 and 2", l, h)
	}
	for body, field := range map[string]string{
		`{"provider":"sim","spec":"A100-80G","gpus_per_node":8,"max_nodes":6,"boot_failure_limit":101}`:     "boot_failure_limit",
		`{"provider":"sim","spec":"A100-80G","gpus_per_node":8,"max_nodes":6,"boot_backoff_max_s":2592001}`: "boot_backoff_max_s",
	} {
		w := s.Post("/api/v1/pools/a100", body)
		if e := webtest.Decode[api.Error](t, w); w.Code != http.StatusUnprocessableEntity || e.Field != field {
			t.Errorf("POST /api/v1/pools/a100 %s = %d %v, want 422 on %s", body, w.Code, e, field)
		}
	}
}
