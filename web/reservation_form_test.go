package web_test

import (
	"net/http"
	"strings"
	"testing"
)

// A member books cards from the projects page's request form; the lead sees the reservation
// with its cost at current prices (2 GPUs × 9 h × ¥15.00) on the approvals page, in both
// languages. A reservation over the limit comes back on the form.
func TestReservationRequestForm(t *testing.T) {
	w := newApprovalWorld(t)
	send := func(gpus string) int {
		r := w.form("/projects/requests", map[string][]string{"project": {"vision"}, "spec": {"A100-80G"}, "kind": {"reservation"},
			"value": {gpus}, "begins": {"2026-03-03T09:00"}, "ends": {"2026-03-03T18:00"}, "reason": {"delivery week"}},
			bearer(w.tokens["member"])...)
		r.Body.Close()
		return r.StatusCode
	}
	if got := send("3"); got != http.StatusUnprocessableEntity {
		t.Errorf("a reservation over the limit = %d, want 422", got)
	}
	if got := send("2"); got != http.StatusSeeOther {
		t.Fatalf("a reservation = %d, want 303", got)
	}
	for lang, want := range map[string][]string{
		"en":    {"Reservation: 2 GPUs, 2026-03-03", "¥270.00", "for every booked card-hour"},
		"zh-CN": {"预约: 2 卡，2026-03-03", "¥270.00", "按预约的全部卡时计"},
	} {
		body := w.get("/approvals", append(bearer(w.tokens["lead"]), "Accept-Language", lang)...).Body.String()
		for _, s := range want {
			if !strings.Contains(body, s) {
				t.Errorf("%s approvals page lacks %q", lang, s)
			}
		}
	}
}
