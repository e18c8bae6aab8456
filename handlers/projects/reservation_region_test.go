package projects_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	kfleet "kashi/fleet"
	"kashi/fleet/sim"
	"kashi/models"
	"kashi/models/modelstest"
	"kashi/scaler"
	"kashi/scheduler"
	"kashi/web/webtest"
)

// A reservation of A100 cards in region cn-sh2, approved through the HTTP API, on an injected
// clock: of two A100 pools, only the one in cn-sh2 grows within its lead time, the project's
// task starts at 09:00 on its node, another project's long task takes neither its cards
// before nor in the window (the other region's pool is full), and after 18:00 it does.
func TestReservationRegionScenario(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, store *models.Store) { reservationRegionScenario(t, store) })
}

func reservationRegionScenario(t *testing.T, store *models.Store) {
	s := webtest.NewServerOn(t, store, webtest.TestCfg())
	ctx := context.Background()
	if _, err := s.Store.SavePoolConfig(ctx, "a100", webtest.A100Config(), "tester", "east", webtest.T0.Add(-2*time.Hour)); err != nil {
		t.Fatal(err)
	}
	west := webtest.A100Config()
	west.Region, west.Zone, west.MinNodes = "cn-sh2", "cn-sh2-a", 0
	poolW, err := s.Store.SavePoolConfig(ctx, "a100-sh", west, "tester", "west", webtest.T0.Add(-2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Store.SetPrice(ctx, models.Price{Spec: "A100-80G", FromMonth: "2026-01", RateFen: 1500, OverflowRateFen: 2500}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	s.Projects("vision", "nlp")
	n1 := s.Register(webtest.Node("a100-01").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 8))
	vision, _ := s.Store.ProjectByName(ctx, "vision")
	if _, err := s.Store.SetQuota(ctx, "tester", models.Quota{ProjectID: vision.ID, Spec: "A100-80G", MaxGPUs: 16,
		BudgetCardHours: 1000, StartsAt: webtest.T0.AddDate(0, 0, -1), EndsAt: webtest.T0.AddDate(0, 1, 0)}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	mia, li := s.Member("mia", "vision"), s.MemberAs("li", "vision", models.ProjectRoleLead)
	opens, closes := webtest.T0.Add(24*time.Hour), webtest.T0.Add(33*time.Hour)
	lead := 15 * time.Minute

	w := s.Post("/api/v1/requests", webtest.MustJSON(t, map[string]any{"project": "vision", "spec": "A100-80G", "kind": "reservation",
		"change": map[string]any{"reserve_gpus": 8, "reserve_begins": opens, "reserve_ends": closes, "reserve_region": "cn-sh2"}, "reason": "delivery week"}), webtest.Bearer(mia)...)
	if w.Code != http.StatusCreated {
		t.Fatalf("POST /api/v1/requests = %d %s", w.Code, w.Body)
	}
	id := webtest.Decode[struct{ ID int64 }](t, w).ID
	if w := s.Post(fmt.Sprintf("/api/v1/requests/%d/approve", id), `{"comment":"ok"}`, webtest.Bearer(li)...); w.Code != http.StatusOK {
		t.Fatalf("approve = %d %s", w.Code, w.Body)
	}
	if rs, _ := s.Store.Reservations(ctx, webtest.T0, closes); len(rs) != 1 || rs[0].Region != "cn-sh2" || rs[0].Spec != "A100-80G" {
		t.Fatalf("booked %+v, want 8 A100-80G cards in cn-sh2", rs)
	}

	resident := s.Create(webtest.Task("resident").Of("nlp").Spec("A100-80G").Ready().GPUs(8), webtest.T0)
	s.Place(resident, webtest.T0, n1.UUIDs...)

	now := opens.Add(-lead - time.Minute)
	clock := func() time.Time { return now }
	demand := func(ctx context.Context, at time.Time) (scheduler.Snapshot, scheduler.Plan, error) {
		return s.Sched.Loop.QueuePlan(ctx, at)
	}
	sc := scaler.New(s.Store, scaler.Config{Providers: map[string]kfleet.Provider{"sim": sim.New(sim.Options{Now: clock, BootLatency: 5 * time.Minute})},
		Queue: demand, Now: clock, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	nodes := []webtest.Registered{n1}
	seen := func(at time.Time) {
		s.SetNow(at)
		for _, n := range nodes {
			s.PostSamples(n.Token, webtest.Sample(n.UUIDs[0], at, 0, 0))
		}
	}
	scale := func(at time.Time) scaler.Plan {
		t.Helper()
		now = at
		seen(at)
		plan, err := sc.RunOnce(ctx, at)
		if err != nil {
			t.Fatalf("scaling at %s: %v", at, err)
		}
		return plan
	}
	if p := scale(now); len(p.Actions) != 0 {
		t.Fatalf("before the lead time a pool acted: %+v", p.Actions)
	}
	p := scale(opens.Add(-lead + time.Minute))
	if len(p.Actions) != 1 || p.Actions[0].Pool != "a100-sh" || p.Actions[0].Kind != scaler.ActionScaleUp || p.Actions[0].Reason != scaler.ReasonBooked {
		t.Fatalf("within the lead time the pools did %+v (%+v), want cn-sh2's pool one node up for the booking", p.Actions, p.Skips)
	}
	ms, err := s.Store.Machines(ctx, poolW.ID)
	if err != nil || len(ms) != 1 {
		t.Fatalf("Machines = %+v, %v", ms, err)
	}
	s.SetNow(opens.Add(-5 * time.Minute))
	nb := webtest.Node("a100-sh-01").InPool("a100-sh").Cards(webtest.A100Name, webtest.A100MiB, 8)
	nb.R.MachineID = ms[0].ProviderID
	n2 := s.Register(nb)
	nodes = append(nodes, n2)

	long := s.Create(webtest.Task("long").Of("nlp").Spec("A100-80G").Ready().GPUs(8), opens.Add(-2*time.Hour))
	peak := s.Create(webtest.Task("peak").Spec("A100-80G").Ready().GPUs(8), opens.Add(-time.Hour))
	tick := func(at time.Time) {
		t.Helper()
		seen(at)
		if _, err := s.Sched.Loop.RunOnce(ctx, at); err != nil {
			t.Fatalf("scheduling at %s: %v", at, err)
		}
	}
	tick(opens.Add(-5 * time.Minute))
	q := queueOf(t, s)
	if e := q[peak.ID]; e.Reason != string(scheduler.ReasonReservationWindow) || e.ETAP50 == nil || !e.ETAP50.Equal(opens) {
		t.Errorf("before 09:00 the project's task waits as %+v, want %s from 09:00", e, scheduler.ReasonReservationWindow)
	}
	if got := s.TaskState(long.ID); got != models.TaskQueued {
		t.Errorf("before 09:00 the other project's long task is %s on the booked region's cards, want queued", got)
	}
	tick(opens)
	if on := s.TaskGPUs(peak.ID); !slices.Equal(on, s.GPUIDs(n2.UUIDs...)) {
		t.Errorf("at 09:00 the project's task runs on %v, want cn-sh2's cards", on)
	}
	if got := s.TaskState(long.ID); got != models.TaskQueued {
		t.Errorf("the other project's long task is %s in the window, want queued", got)
	}
	if err := s.Store.ReportTaskStatus(ctx, n2.ID, peak.ID, models.TaskReport{State: models.ReportRunning, TS: opens.Add(time.Minute)}, opens.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := s.Store.ReportTaskStatus(ctx, n2.ID, peak.ID, models.TaskReport{State: models.ReportExited, TS: closes.Add(-time.Hour)}, closes.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	tick(closes.Add(-30 * time.Minute))
	if got := s.TaskState(long.ID); got != models.TaskQueued {
		t.Errorf("the other project's long task is %s before 18:00, want queued", got)
	}
	tick(closes.Add(time.Minute))
	if on := s.TaskGPUs(long.ID); !slices.Equal(on, s.GPUIDs(n2.UUIDs...)) {
		t.Errorf("after 18:00 the other project's long task holds %v, want cn-sh2's cards", on)
	}
}

// A reservation in a region on the project's all-spec quota is given, when filed, the
// cheapest priced spec the region's pools can provide the cards of, which prices it on the
// approvals page; a region that cannot is a 422 naming reserve_region.
func TestReservationRegionChoosesSpec(t *testing.T) {
	w := webtest.NewApprovalWorld(t)
	ctx := context.Background()
	if _, err := w.Store.SavePoolConfig(ctx, "a100", webtest.A100Config(), "tester", "", webtest.T0.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	p, _ := w.Store.ProjectByName(ctx, "vision")
	if _, err := w.Store.SetQuota(ctx, "tester", models.Quota{ProjectID: p.ID, Spec: "", MaxGPUs: 16, BudgetCardHours: 1000,
		StartsAt: webtest.T0.AddDate(0, -1, 0), EndsAt: webtest.T0.AddDate(1, 0, 0)}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	ask := func(region string, gpus int) (int, string) {
		r := w.Post("/api/v1/requests", webtest.MustJSON(t, map[string]any{"project": "vision", "spec": "", "kind": "reservation",
			"change": map[string]any{"reserve_gpus": gpus, "reserve_begins": webtest.T0.Add(24 * time.Hour), "reserve_ends": webtest.T0.Add(33 * time.Hour),
				"reserve_region": region}, "reason": "region peak"}), webtest.Bearer(w.Tokens["member"])...)
		return r.Code, r.Body.String()
	}
	if code, body := ask("cn-gz1", 49); code != http.StatusUnprocessableEntity || !strings.Contains(body, "reserve_region") {
		t.Errorf("more cards than the region's pools hold = %d %s, want 422 naming reserve_region", code, body)
	}
	if code, body := ask("cn-gz1", 4); code != http.StatusCreated || !strings.Contains(body, `A100-80G`) {
		t.Fatalf("a reservation in cn-gz1 = %d %s, want 201 booking A100-80G", code, body)
	}
	// The projects page's form offers the pools' regions and files the same ask.
	page := w.Get("/projects", webtest.Bearer(w.Tokens["member"])...).Body.String()
	if !strings.Contains(page, `data-testid="reserve-region"`) || !strings.Contains(page, `<option value="cn-gz1">cn-gz1</option>`) {
		t.Errorf("the request form offers no region cn-gz1")
	}
	r := w.Form("/projects/requests", map[string][]string{"project": {"vision"}, "spec": {""}, "kind": {"reservation"}, "value": {"2"},
		"begins": {"2026-03-04T09:00"}, "ends": {"2026-03-04T18:00"}, "region": {"cn-gz1"}, "reason": {"form peak"}}, webtest.Bearer(w.Tokens["member"])...)
	r.Body.Close()
	if r.StatusCode != http.StatusSeeOther {
		t.Fatalf("the form's reservation in a region = %d, want 303", r.StatusCode)
	}
	rows, err := w.Store.QuotaRequests(ctx, nil, models.RequestPending)
	if err != nil || len(rows) == 0 {
		t.Fatalf("QuotaRequests = %v, %v", rows, err)
	}
	for _, row := range rows {
		c := row.Parsed()
		if row.Kind == models.RequestReservation && (c.ReserveRegion != "cn-gz1" || c.ReserveSpec != "A100-80G") {
			t.Errorf("request %q filed %+v, want cards in cn-gz1 as A100-80G", row.Reason, c)
		}
	}
	if c := rows[0].Parsed(); c.ReserveGPUs != 2 {
		t.Errorf("the form filed %+v, want 2 cards", c)
	}
	// 4 cards × 9 h at ¥15.00.
	body := w.Get("/approvals", append(webtest.Bearer(w.Tokens["lead"]), "Accept-Language", "en")...).Body.String()
	for _, want := range []string{"in region cn-gz1, as A100-80G", "¥540.00"} {
		if !strings.Contains(body, want) {
			t.Errorf("approvals page lacks %q", want)
		}
	}
}
