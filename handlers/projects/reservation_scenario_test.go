package projects_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"testing"
	"time"

	"kashi/billing"
	kfleet "kashi/fleet"
	"kashi/fleet/sim"
	"kashi/models"
	"kashi/models/modelstest"
	"kashi/scaler"
	"kashi/scheduler"
	"kashi/web/webtest"
)

// A reservation approved for tomorrow 09:00–18:00, through the real HTTP API, scaling loop
// and scheduler loop on an injected clock: the pool grows within its lead time (the default
// boot timeout, 15m) before 09:00, the project's task waits for its window and starts at
// 09:00 on the held cards, another project's long task does not take them, and after 18:00
// the pool's floor is gone and the other project gets the cards. The month's bill shows the
// window's used and unused card-hours, the unused ones priced by the pool's rule (50 %).
func TestReservationScenario(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, store *models.Store) { reservationScenario(t, store) })
}

func reservationScenario(t *testing.T, store *models.Store) {
	s := webtest.NewServerOn(t, store, webtest.TestCfg())
	ctx := context.Background()
	cfg := webtest.A100Config()
	cfg.UnusedBookingPct = new(50)
	pool, err := s.Store.SavePoolConfig(ctx, "a100", cfg, "tester", "first", webtest.T0.Add(-2*time.Hour))
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
	opens, closes := webtest.T0.Add(24*time.Hour), webtest.T0.Add(33*time.Hour) // tomorrow 09:00–18:00 UTC
	lead := 15 * time.Minute

	// Mia asks, Li approves: one window is booked.
	w := s.Post("/api/v1/requests", webtest.MustJSON(t, map[string]any{"project": "vision", "spec": "A100-80G", "kind": "reservation",
		"change": map[string]any{"reserve_gpus": 8, "reserve_begins": opens, "reserve_ends": closes}, "reason": "delivery week"}), webtest.Bearer(mia)...)
	if w.Code != http.StatusCreated {
		t.Fatalf("POST /api/v1/requests = %d %s", w.Code, w.Body)
	}
	id := webtest.Decode[struct{ ID int64 }](t, w).ID
	if w := s.Post(fmt.Sprintf("/api/v1/requests/%d/approve", id), `{"comment":"ok"}`, webtest.Bearer(li)...); w.Code != http.StatusOK {
		t.Fatalf("approve = %d %s", w.Code, w.Body)
	}
	if rs, _ := s.Store.Reservations(ctx, webtest.T0, closes); len(rs) != 1 || rs[0].GPUs != 8 {
		t.Fatalf("booked %+v", rs)
	}

	// nlp keeps a100-01 busy with a task that never ends.
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
	seen := func(at time.Time) { // the agents report: their nodes stay live
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
	booked := func(p scaler.Plan) bool {
		return slices.ContainsFunc(p.Actions, func(a scaler.Action) bool { return a.Reason == scaler.ReasonBooked }) ||
			slices.ContainsFunc(p.Skips, func(k scaler.Skip) bool { return k.Reason == scaler.ReasonBooked })
	}
	if p := scale(now); booked(p) || len(p.Actions) != 0 {
		t.Fatalf("before the lead time the pool acted: %+v", p.Actions)
	}
	p := scale(opens.Add(-lead + time.Minute))
	if len(p.Actions) != 1 || p.Actions[0].Kind != scaler.ActionScaleUp || p.Actions[0].Reason != scaler.ReasonBooked || p.Actions[0].Count != 1 {
		t.Fatalf("within the lead time the pool did %+v (%+v), want one node up for the booking", p.Actions, p.Skips)
	}
	// The machine boots and its agent registers.
	ms, err := s.Store.Machines(ctx, pool.ID)
	if err != nil || len(ms) != 1 {
		t.Fatalf("Machines = %+v, %v", ms, err)
	}
	s.SetNow(opens.Add(-5 * time.Minute))
	nb := webtest.Node("a100-02").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 8)
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
	if e := q[long.ID]; e.Reason != string(scheduler.ReasonNoFreeGPUs) || e.ReasonDetail != scheduler.DetailBooked {
		t.Errorf("before 09:00 the other project's long task waits as %+v, want booked cards", e)
	}

	tick(opens)
	if got := s.TaskState(peak.ID); got != models.TaskStarting {
		t.Fatalf("at 09:00 the project's task is %s, want starting", got)
	}
	if on := s.TaskGPUs(peak.ID); !slices.Equal(on, s.GPUIDs(n2.UUIDs...)) {
		t.Errorf("the project's task runs on %v, want the booked node's cards", on)
	}
	if got := s.TaskState(long.ID); got != models.TaskQueued {
		t.Errorf("the other project's long task is %s in the window, want queued", got)
	}
	// In the window the pool keeps the booked node; the other project's waiting task is
	// demand for one more.
	if p := scale(opens.Add(time.Hour)); slices.ContainsFunc(p.Actions, func(a scaler.Action) bool { return a.Kind == scaler.ActionDrain }) {
		t.Errorf("in the window the pool drains: %+v", p.Actions)
	}

	// The project's task ends in the afternoon; after 18:00 the cards are released.
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
	if p := scale(closes.Add(time.Minute)); booked(p) {
		t.Errorf("after 18:00 the pool still holds the booking: %+v %+v", p.Actions, p.Skips)
	}
	tick(closes.Add(time.Minute))
	if got := s.TaskState(long.ID); got != models.TaskStarting {
		t.Errorf("after 18:00 the other project's long task is %s, want starting", got)
	}

	// The bill: 8 cards booked for 9 hours, the task held them 8 (09:00–17:00); the hour
	// not used, 8 card-hours, at half of 15 yuan.
	w = s.Get("/api/v1/bills/vision/2026-03")
	if w.Code != http.StatusOK {
		t.Fatalf("GET the bill = %d %s", w.Code, w.Body)
	}
	bill := webtest.Decode[billing.Bill](t, w)
	if len(bill.Bookings) != 1 || bill.Bookings[0].BookedS != 72*3600 || bill.Bookings[0].UsedS != 64*3600 ||
		bill.Bookings[0].UnusedS != 8*3600 || bill.Bookings[0].ChargePct != 50 {
		t.Errorf("the bill's bookings = %+v, want 72 card-hours booked, 64 used, 8 unused at 50 %%", bill.Bookings)
	}
	if i := slices.IndexFunc(bill.Items, func(it billing.Item) bool { return it.Kind == billing.ItemBookingUnused }); i < 0 ||
		bill.Items[i].NominalS != 8*3600 || bill.Items[i].AmountFen != 8*750 {
		t.Errorf("the bill's items = %+v, want unused booked hours of 8 card-hours at 60 yuan", bill.Items)
	}
}

// queueOf reads GET /api/v1/queue by task id.
func queueOf(t *testing.T, s *webtest.Server) map[int64]queueTask {
	t.Helper()
	w := s.Get("/api/v1/queue")
	if w.Code != http.StatusOK {
		t.Fatalf("GET /api/v1/queue = %d %s", w.Code, w.Body)
	}
	out := make(map[int64]queueTask)
	for _, e := range webtest.Decode[struct{ Tasks []queueTask }](t, w).Tasks {
		out[e.ID] = e
	}
	return out
}

// queueTask is what the scenario reads of a queue entry.
type queueTask struct {
	ID           int64      `json:"id"`
	Reason       string     `json:"reason"`
	ReasonDetail string     `json:"reason_detail"`
	ETAP50       *time.Time `json:"eta_p50"`
}
