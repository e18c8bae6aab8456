package bills_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"kashi/web/webtest"
)

// Admins set the metering thresholds through the API; a bad value is 422 naming the field
// and changes nothing.
func TestBillingSettingsAPI(t *testing.T) {
	s := webtest.NewServer(t)
	w := s.Post("/api/v1/billing/settings", `{"time_zone":"Asia/Shanghai","idle_util_pct":15,"active_util_pct":50}`, webtest.Bearer(s.Token)...)
	if w.Code != http.StatusOK {
		t.Fatalf("POST settings = %d %s, want 200", w.Code, w.Body)
	}
	w = s.Post("/api/v1/billing/settings", `{"time_zone":"Asia/Shanghai","idle_util_pct":60,"active_util_pct":50}`, webtest.Bearer(s.Token)...)
	var e struct{ Field string }
	if json.Unmarshal(w.Body.Bytes(), &e); w.Code != http.StatusUnprocessableEntity || e.Field != "active_util_pct" {
		t.Errorf("POST idle above active = %d %s, want 422 naming active_util_pct", w.Code, w.Body)
	}
	var got struct {
		IdleUtilPct   int `json:"idle_util_pct"`
		ActiveUtilPct int `json:"active_util_pct"`
	}
	json.Unmarshal(s.Get("/api/v1/billing/settings", webtest.Bearer(s.Token)...).Body.Bytes(), &got)
	if got.IdleUtilPct != 15 || got.ActiveUtilPct != 50 {
		t.Errorf("GET settings = %+v, want 15/50 kept", got)
	}
	if th := s.Store.Thresholds(); th.IdleUtilPct != 15 || th.ActiveUtilPct != 50 {
		t.Errorf("store thresholds = %+v, want 15/50", th)
	}
}
