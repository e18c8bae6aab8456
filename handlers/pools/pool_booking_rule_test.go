package pools_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"kashi/api"
	"kashi/web/webtest"
)

// TestPoolBookingRuleForm: the pools form edits the rule for unused booked hours, refusing a
// share outside 0–100 % beside the field, and the API does too.
func TestPoolBookingRuleForm(t *testing.T) {
	s := webtest.NewPoolServer(t)
	form := func(pct string) url.Values {
		return url.Values{"provider": {"sim"}, "spec": {"A100-80G"}, "gpus_per_node": {"8"}, "max_nodes": {"6"},
			"enabled": {"on"}, "unused_booking_pct": {pct}}
	}
	for _, bad := range []string{"101", "-1", "half"} {
		resp := s.Form("/pools/a100", form(bad))
		if n := webtest.DocOf(t, resp).Find(`[data-testid=field-error][data-field=unused_booking_pct]`).Length(); resp.StatusCode != http.StatusUnprocessableEntity || n != 1 {
			t.Errorf("POST /pools/a100 with unused_booking_pct=%s = %d with %d field errors, want 422 beside the field", bad, resp.StatusCode, n)
		}
	}
	if resp := s.Form("/pools/a100", form("40")); resp.StatusCode >= 400 {
		t.Fatalf("POST /pools/a100 with 40 %% = %d", resp.StatusCode)
	}
	p, err := s.Store.ConfiguredPoolByName(context.Background(), "a100")
	if err != nil || p.Config.UnusedBooking() != 40 {
		t.Errorf("saved rule = %d, %v; want 40", p.Config.UnusedBooking(), err)
	}
	if v := webtest.Parse(t, s.Get("/pools/a100/edit").Body.String()).Find(`[name=unused_booking_pct]`).AttrOr("value", ""); v != "40" {
		t.Errorf("the form shows %q, want 40", v)
	}
	w := s.Post("/api/v1/pools/a100", `{"provider":"sim","spec":"A100-80G","gpus_per_node":8,"max_nodes":6,"unused_booking_pct":120}`)
	if e := webtest.Decode[api.Error](t, w); w.Code != http.StatusUnprocessableEntity || e.Field != "unused_booking_pct" {
		t.Errorf("POST /api/v1/pools/a100 with 120 %% = %d %v, want 422 on unused_booking_pct", w.Code, e)
	}
}
