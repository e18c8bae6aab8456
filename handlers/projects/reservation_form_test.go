package projects_test

import (
	"net/http"
	"strings"
	"testing"

	"kashi/web/webtest"
)

// A member books cards from the projects page's request form; the lead sees the reservation
// with its cost at current prices (2 GPUs × 9 h × ¥15.00) on the approvals page, in both
// languages. A reservation over the limit comes back on the form.
func TestReservationRequestForm(t *testing.T) {
	w := webtest.NewApprovalWorld(t)
	send := func(gpus string) int {
		r := w.Form("/projects/requests", map[string][]string{"project": {"vision"}, "spec": {"A100-80G"}, "kind": {"reservation"},
			"value": {gpus}, "begins": {"2026-03-03T09:00"}, "ends": {"2026-03-03T18:00"}, "reason": {"delivery week"}},
			webtest.Bearer(w.Tokens["member"])...)
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
		body := w.Get("/approvals", append(webtest.Bearer(w.Tokens["lead"]), "Accept-Language", lang)...).Body.String()
		for _, s := range want {
			if !strings.Contains(body, s) {
				t.Errorf("%s approvals page lacks %q", lang, s)
			}
		}
	}
}

// Members list their project's booked windows; only a lead cancels one, once.
func TestReservationListAndCancel(t *testing.T) {
	w := webtest.NewApprovalWorld(t)
	r := w.Post("/api/v1/requests", `{"project":"vision","spec":"A100-80G","kind":"reservation","change":{"reserve_gpus":2,`+
		`"reserve_begins":"2026-03-03T09:00:00Z","reserve_ends":"2026-03-03T18:00:00Z","reserve_weeks":1},"reason":"peak"}`, webtest.Bearer(w.Tokens["member"])...)
	if r.Code != http.StatusCreated {
		t.Fatalf("POST /api/v1/requests = %d %s", r.Code, r.Body)
	}
	req := webtest.Decode[struct{ ID int64 }](t, r)
	if r := w.Post("/api/v1/requests/"+webtest.IDStr(req.ID)+"/approve", `{}`, webtest.Bearer(w.Tokens["lead"])...); r.Code != http.StatusOK {
		t.Fatalf("approve = %d %s", r.Code, r.Body)
	}
	type booking struct {
		ID    int64
		GPUs  int
		State string
	}
	list := func() []booking {
		r := w.Get("/api/v1/reservations", webtest.Bearer(w.Tokens["member"])...)
		if r.Code != http.StatusOK {
			t.Fatalf("GET /api/v1/reservations = %d %s", r.Code, r.Body)
		}
		return webtest.Decode[[]booking](t, r)
	}
	bs := list()
	if len(bs) != 2 || bs[0].GPUs != 2 || bs[0].State != "approved" {
		t.Fatalf("listed %+v, want two weekly windows of 2 GPUs", bs)
	}
	path := "/api/v1/reservations/" + webtest.IDStr(bs[1].ID) + "/cancel"
	if r := w.Post(path, `{}`, webtest.Bearer(w.Tokens["member"])...); r.Code != http.StatusForbidden {
		t.Errorf("a member's cancel = %d, want 403", r.Code)
	}
	if r := w.Post(path, `{}`, webtest.Bearer(w.Tokens["lead"])...); r.Code != http.StatusOK || !strings.Contains(r.Body.String(), `"state":"cancelled"`) {
		t.Errorf("the lead's cancel = %d %s", r.Code, r.Body)
	}
	if r := w.Post(path, `{}`, webtest.Bearer(w.Tokens["lead"])...); r.Code != http.StatusNotFound {
		t.Errorf("a second cancel = %d, want 404", r.Code)
	}
	if bs := list(); len(bs) != 1 {
		t.Errorf("after the cancel %+v are listed, want one", bs)
	}
}
