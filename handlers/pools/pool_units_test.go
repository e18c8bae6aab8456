package pools_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"kashi/web/webtest"
)

// TestPoolFormHours: a duration of hours is shown and typed in hours, with its unit in the
// label and the help, in both languages, and stored in seconds.
func TestPoolFormHours(t *testing.T) {
	s := webtest.NewPoolServer(t)
	v := url.Values{"provider": {"sim"}, "spec": {"A100-80G"}, "gpus_per_node": {"8"}, "min_nodes": {"1"}, "max_nodes": {"6"},
		"reclaim_keep_for_s": {"1.5"}}
	if resp := s.Form("/pools/a100", v); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("POST = %d, want 303", resp.StatusCode)
	}
	cp, err := s.Store.ConfiguredPoolByName(context.Background(), "a100")
	if err != nil || cp.Config.ReclaimKeepForS != 5400 {
		t.Fatalf("stored keep time = %d s, %v; want 5400", cp.Config.ReclaimKeepForS, err)
	}
	for lang, want := range map[string][3]string{
		"en":    {"Keep time (h)", "0 means 2 h.", "1.5"},
		"zh-CN": {"保留时长（小时）", "0 表示 2 小时。", "1.5"},
	} {
		doc := webtest.Parse(t, s.Get("/pools/a100/edit", "Accept-Language", lang).Body.String())
		field := doc.Find(`[data-field=reclaim_keep_for_s]`)
		label, help := strings.TrimSpace(field.Find("label").Text()), field.Find(".help").Text()
		if label != want[0] || !strings.HasSuffix(help, want[1]) || field.Find("input").AttrOr("value", "") != want[2] {
			t.Errorf("%s: keep time label %q, help %q, value %q; want %q, …%q, %q", lang, label, help,
				field.Find("input").AttrOr("value", ""), want[0], want[1], want[2])
		}
	}
}
