package pools_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"kashi/web/webtest"
)

// TestPoolFormNamesEveryProblem: the pool form names every bad setting at once — those it
// cannot read and those the store refuses of the rest — beside each and in a list above the
// form, in the form's order, with the cursor on the first; nothing is saved.
func TestPoolFormNamesEveryProblem(t *testing.T) {
	s := webtest.NewPoolServer(t)
	v := url.Values{"provider": {"sim"}, "spec": {"A100-80G"}, "gpus_per_node": {"8"}, "flavor": {"gpu.a100.8x"},
		"image": {"kashi-agent"}, "enabled": {"on"}, "min_nodes": {"-1"}, "max_nodes": {"abc"}, "hourly_price_fen": {"-5"},
		"unneeded_s": {"x"}}
	resp := s.Form("/pools/a100", v)
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("POST /pools/a100 = %d, want 422", resp.StatusCode)
	}
	doc := webtest.DocOf(t, resp)
	var listed, beside []string
	doc.Find(`[data-testid=pool-problem-item]`).Each(func(_ int, s *goquery.Selection) { listed = append(listed, s.AttrOr("data-field", "")) })
	doc.Find(`[data-testid=field-error]`).Each(func(_ int, s *goquery.Selection) {
		if s.Text() != "" {
			beside = append(beside, s.AttrOr("data-field", ""))
		}
	})
	want := []string{"hourly_price_fen", "min_nodes", "max_nodes", "unneeded_s"}
	if diff := cmp.Diff(want, listed); diff != "" {
		t.Errorf("settings listed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, beside); diff != "" {
		t.Errorf("settings with a problem beside them (-want +got):\n%s", diff)
	}
	if got := doc.Find(`[data-testid=pool-form] [autofocus]`).AttrOr("name", ""); got != "hourly_price_fen" {
		t.Errorf("the cursor is on %q, want the first bad setting", got)
	}
	if vs, _ := s.Store.PoolConfigVersions(t.Context(), "a100"); len(vs) != 1 {
		t.Errorf("versions after a refused save = %d, want 1", len(vs))
	}
}
