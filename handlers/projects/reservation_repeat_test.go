package projects_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"kashi/web/webtest"
)

// A member asks, from the projects page's form, for cards every Tuesday and Thursday until a
// date; the approvals page says so with the cost of every window; approved, each window is
// booked, and the list places each in its series. A weekly repeat with no window, or without
// its end date, comes back on the form naming the field.
func TestReservationRepeatForm(t *testing.T) {
	w := webtest.NewApprovalWorld(t)
	send := func(repeat, until string, days ...string) int {
		r := w.Form("/projects/requests", map[string][]string{"project": {"vision"}, "spec": {"A100-80G"}, "kind": {"reservation"},
			"value": {"2"}, "begins": {"2026-03-03T09:00"}, "ends": {"2026-03-03T18:00"}, "reason": {"standups"},
			"repeat": {repeat}, "weekday": days, "until": {until}}, webtest.Bearer(w.Tokens["member"])...)
		r.Body.Close()
		return r.StatusCode
	}
	if got := send("weekly", ""); got != http.StatusUnprocessableEntity {
		t.Errorf("a weekly repeat without an end date = %d, want 422", got)
	}
	if got := send("weekly", "2026-03-04", "fri"); got != http.StatusUnprocessableEntity {
		t.Errorf("a weekly repeat with no window = %d, want 422", got)
	}
	if got := send("weekly", "2026-03-12", "tue", "thu"); got != http.StatusSeeOther {
		t.Fatalf("a weekly repeat = %d, want 303", got)
	}
	// Four windows of 2 GPUs × 9 h at ¥15.00: ¥1,080.00.
	for lang, want := range map[string][]string{
		"en":    {"every Tue, Thu until 2026-03-12 (4 windows)", "¥1,080.00"},
		"zh-CN": {"每周二、周四重复至 2026-03-12（共 4 个时段）", "¥1,080.00"},
	} {
		body := w.Get("/approvals", append(webtest.Bearer(w.Tokens["lead"]), "Accept-Language", lang)...).Body.String()
		for _, s := range want {
			if !strings.Contains(body, s) {
				t.Errorf("%s approvals page lacks %q", lang, s)
			}
		}
	}
	var id int64
	for _, r := range webtest.Decode[[]struct {
		ID   int64
		Kind string
	}](t, w.Get("/api/v1/requests?state=pending", webtest.Bearer(w.Tokens["lead"])...)) {
		if r.Kind == "reservation" {
			id = r.ID
		}
	}
	if r := w.Post("/api/v1/requests/"+webtest.IDStr(id)+"/approve", `{}`, webtest.Bearer(w.Tokens["lead"])...); r.Code != http.StatusOK {
		t.Fatalf("approve = %d %s", r.Code, r.Body)
	}
	type booking struct {
		StartsAt                string `json:"starts_at"`
		Occurrence, Occurrences int
	}
	bs := webtest.Decode[[]booking](t, w.Get("/api/v1/reservations", webtest.Bearer(w.Tokens["member"])...))
	var got []string
	for _, b := range bs {
		got = append(got, b.StartsAt+" "+webtest.IDStr(int64(b.Occurrence))+"/"+webtest.IDStr(int64(b.Occurrences)))
	}
	want := "2026-03-03T09:00:00Z 1/4 2026-03-05T09:00:00Z 2/4 2026-03-10T09:00:00Z 3/4 2026-03-12T09:00:00Z 4/4"
	if strings.Join(got, " ") != want {
		t.Errorf("booked %q, want %q", strings.Join(got, " "), want)
	}
}

// The JSON API takes a daily repeat and names the field of a bad one.
func TestReservationRepeatAPI(t *testing.T) {
	w := webtest.NewApprovalWorld(t)
	ask := func(change string) *httptest.ResponseRecorder {
		return w.Post("/api/v1/requests", `{"project":"vision","spec":"A100-80G","kind":"reservation","change":{"reserve_gpus":1,`+
			`"reserve_begins":"2026-03-03T09:00:00Z","reserve_ends":"2026-03-03T18:00:00Z",`+change+`},"reason":"peak"}`, webtest.Bearer(w.Tokens["member"])...)
	}
	for change, field := range map[string]string{
		`"reserve_repeat":"hourly","reserve_until":"2026-03-09T00:00:00Z"`:                           "reserve_repeat",
		`"reserve_repeat":"daily","reserve_until":"2026-12-31T00:00:00Z"`:                            "reserve_until",
		`"reserve_repeat":"weekly","reserve_weekdays":["mo"],"reserve_until":"2026-03-09T00:00:00Z"`: "reserve_weekdays",
		`"reserve_repeat":"daily","reserve_until":"2026-03-09T00:00:00Z","reserve_zone":"Nowhere/X"`: "reserve_zone",
	} {
		if r := ask(change); r.Code != http.StatusUnprocessableEntity || !strings.Contains(r.Body.String(), field) {
			t.Errorf("%s = %d %s, want 422 naming %s", change, r.Code, r.Body, field)
		}
	}
	if r := ask(`"reserve_repeat":"daily","reserve_until":"2026-03-09T00:00:00Z"`); r.Code != http.StatusCreated || !strings.Contains(r.Body.String(), `"reserve_zone"`) {
		t.Errorf("a daily repeat = %d %s, want 201 with the billing zone filled in", r.Code, r.Body)
	}
}
