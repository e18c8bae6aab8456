package billing

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"kashi/models"
)

// history is a random allocation history with its input for Compute (Month unset).
type history struct {
	in      Input
	tasks   []models.LedgerTask
	allocs  []models.LedgerAllocation
	rollups rollupList
	held    map[int64]Span // allocation id → held span
	// served are the buckets in which each service served, as a set.
	served map[int64]map[int64]bool
	asOf   time.Time
	first  time.Time
}

var (
	histStart = time.Date(2026, 1, 20, 0, 0, 0, 0, time.UTC)
	specs     = []string{"A100-80G", "H800-80G"}
	states    = []string{models.TaskSucceeded, models.TaskFailed, models.TaskTimedOut, models.TaskReclaimed, models.TaskCancelled, models.TaskRunning}
	// reasons are what a task of a state may have ended for: reclaimed for idleness or
	// released by its owner, failed on its own or with its lost node.
	reasons = map[string][]string{
		models.TaskReclaimed: {"idle 2h", models.ReleasedReason("ana")},
		models.TaskFailed:    {"exited 1", "node n1 lost: last seen 2026-01-20T00:00:00Z"},
	}
)

// randomHistory builds projects, tasks holding one to three GPUs for up to 40 days (some
// still open; about one in four a replica of its project's inference service), random
// rollups, the buckets in which each service served, prices and plans.
func randomHistory(r *rand.Rand, loc *time.Location) history {
	h := history{held: map[int64]Span{}, served: map[int64]map[int64]bool{}, asOf: histStart.Add(150 * 24 * time.Hour)}
	h.first = h.asOf
	in := Input{Location: loc, AsOf: h.asOf}
	for p := int64(1); p <= 3; p++ {
		in.Projects = append(in.Projects, models.Project{ID: p, Name: fmt.Sprintf("p%d", p)})
	}
	modes := []models.BillingPlan{
		{ProjectID: 1, Mode: models.BillPayAsYouGo},
		{ProjectID: 2, Mode: models.BillReserved, PackageSpec: specs[0], PackageCards: 1 + r.IntN(3), PackageFeeFen: r.Int64N(10_000_000)},
		{ProjectID: 3, Mode: models.BillPerTask, UnitPriceFen: r.Int64N(500)},
	}
	if r.IntN(2) == 0 {
		modes[2].SizeClasses = `[{"name":"S","max_card_hours":10,"price_fen":1000},{"name":"L","max_card_hours":0,"price_fen":90000}]`
	}
	in.Plans = modes
	for _, s := range specs {
		in.Prices = append(in.Prices, models.Price{Spec: s, RateFen: 500 + r.Int64N(3000), OverflowRateFen: 4000 + r.Int64N(3000)})
	}
	in.Prices = append(in.Prices, models.Price{ProjectID: 1, Spec: specs[1], RateFen: 777, OverflowRateFen: 999})
	const gpus = 6
	var allocID int64
	for t := int64(1); t <= int64(5+r.IntN(40)); t++ {
		start := histStart.Add(time.Duration(r.Int64N(100*86400)) * time.Second)
		dur := time.Duration(r.Int64N(40*86400)) * time.Second
		if r.IntN(5) == 0 {
			dur = time.Duration(r.Int64N(600)) * time.Second
		}
		state := states[r.IntN(len(states))]
		reason := ""
		if rs := reasons[state]; len(rs) > 0 {
			reason = rs[r.IntN(len(rs))]
		}
		task := models.LedgerTask{ID: t, ProjectID: 1 + r.Int64N(3), Name: fmt.Sprintf("t%d", t), Owner: "o", State: state,
			Ending: models.TaskEnding(state, reason), OutputUnits: r.Int64N(1000)}
		if r.IntN(4) == 0 {
			task.ServiceID, task.Model = 1000+task.ProjectID, "m"
		}
		var end int64
		if state != models.TaskRunning {
			end = start.Add(dur).Unix()
			task.EndedAt = end
		}
		if r.IntN(2) == 0 && dur > 0 {
			task.CheckpointAt = start.Unix() + r.Int64N(int64(dur/time.Second))
		}
		h.tasks = append(h.tasks, task)
		n := 1 + r.IntN(3)
		for _, g := range r.Perm(gpus)[:n] {
			allocID++
			a := models.LedgerAllocation{ID: allocID, TaskID: t, GPUID: int64(g + 1), NodeID: 1, ProjectID: task.ProjectID,
				Spec: specs[g%2], Start: start.Unix(), End: end, Overflow: r.IntN(6) == 0}
			if task.ServiceID == 0 && end != 0 && r.IntN(4) == 0 { // an attempt that was rerun
				a.RerunFrom = start.Unix() + r.Int64N(end-start.Unix()+1)
			} else if task.ServiceID == 0 && r.IntN(6) == 0 { // a trial's run
				a.Trial = true
			}
			h.allocs = append(h.allocs, a)
			e := h.asOf.Unix()
			if end != 0 {
				e = end
			}
			h.held[allocID] = Span{start.Unix(), e}
			if start.Before(h.first) {
				h.first = start
			}
		}
	}
	for g := int64(1); g <= gpus; g++ {
		b := histStart.Unix() - histStart.Unix()%models.Rollup5m
		for k := 0; k < 400; k++ {
			b += models.Rollup5m * (1 + r.Int64N(200))
			n := r.Int64N(31)
			act := r.Int64N(n + 1)
			h.rollups = append(h.rollups, models.GPURollup{GPUID: g, Resolution: models.Rollup5m, Bucket: b,
				N: n, NActive: act, NIdle: r.Int64N(n - act + 1)})
		}
	}
	// Each project's service serves in random runs of buckets over the whole history.
	in.Serving = models.ServiceServing{Replicas: map[int64]int64{}, Served: map[int64][]int64{}}
	for _, t := range h.tasks {
		if t.ServiceID != 0 {
			in.Serving.Replicas[t.ID] = t.ServiceID
		}
	}
	for p := int64(1); p <= 3; p++ {
		svc := 1000 + p
		h.served[svc] = map[int64]bool{}
		b := histStart.Unix() - histStart.Unix()%models.Rollup5m
		for b < h.asOf.Unix() {
			run, gap := 1+r.Int64N(300), r.Int64N(300)
			for ; run > 0; run-- {
				h.served[svc][b] = true
				in.Serving.Served[svc] = append(in.Serving.Served[svc], b)
				b += models.Rollup5m
			}
			b += gap * models.Rollup5m
		}
	}
	in.Ledger, in.Tasks = ledgerOf(h.allocs, h.rollups), tasksOf(h.tasks)
	h.in = in
	return h
}

// servedIn is the seconds of s in buckets in which service served, counted bucket by
// bucket: what a replica's card held over s served.
func (h history) servedIn(service int64, s Span) int64 {
	var n int64
	for t := s.Start; t < s.End; {
		b := t - t%models.Rollup5m
		end := min(b+models.Rollup5m, s.End)
		if h.served[service][b] {
			n += end - t
		}
		t = end
	}
	return n
}

// TestConservation: for random histories in zones with and without daylight saving, with
// tasks finished, failed, lost, timed out, reclaimed, released and cancelled, some with
// checkpoints, some attempts rerun, some trials' runs and some replicas of inference services, the bills' line
// seconds over all months equal the allocations' held seconds to the second, per project and
// month as the months split them; each class of a bill equals that class of its allocations
// classified one by one (a replica's: serving where its service served, idle elsewhere; an
// attempt rerun's: rerun from its RerunFrom on, its wasted seconds), whatever the
// tasks' endings, and its wasted seconds those of its interrupted tasks after their
// checkpoints; every line's classes add up to its nominal seconds; totals equal the sums of
// rounded lines and items. The bills' JSON (the API's), CSV and XLSX say the same: held =
// effective + each waste class per task, project and month, with the same figures on each
// (checkSurfaces).
func TestConservation(t *testing.T) {
	zones := []string{"Asia/Shanghai", "UTC", "Asia/Kolkata", "America/New_York", "Europe/Berlin"}
	seeds := 40
	if testing.Short() {
		seeds = 5
	}
	for _, zone := range zones {
		loc := mustLoc(t, zone)
		for seed := 0; seed < seeds; seed++ {
			h := randomHistory(rand.New(rand.NewPCG(uint64(seed), 7)), loc)
			checkConservation(t, fmt.Sprintf("%s seed %d", zone, seed), h)
		}
	}
}

func checkConservation(t *testing.T, name string, h history) {
	t.Helper()
	// What the months should hold, from the allocations alone.
	want := map[string]int64{} // "project month" → seconds
	var wantTotal int64
	byID := map[int64]models.LedgerAllocation{}
	for _, a := range h.allocs {
		byID[a.ID] = a
		s := h.held[a.ID]
		wantTotal += s.Seconds()
		for _, p := range splitMonths(time.Unix(s.Start, 0), time.Unix(s.End, 0), h.in.Location) {
			want[fmt.Sprintf("%d %s", a.ProjectID, p.Month)] += p.Span.Seconds()
		}
	}
	var gotTotal int64
	var all []Bill
	perAlloc := map[int64]int64{}
	rollups := h.rollups.byGPU()
	tasks := map[int64]*models.LedgerTask{}
	for i := range h.tasks {
		tasks[h.tasks[i].ID] = &h.tasks[i]
	}
	// wasted is what an allocation of task tk lost in win, said again here: every held
	// second after the checkpoint (or the start) of a task that did not finish, was not
	// cancelled and is not running.
	wasted := func(tk *models.LedgerTask, s, win Span) int64 {
		switch tk.Ending {
		case models.EndFinished, models.EndCancelled, "":
			return 0
		}
		if tk.CheckpointAt > s.Start {
			s.Start = tk.CheckpointAt
		}
		return s.Clip(win).Seconds()
	}
	for m := MonthOf(h.first, h.in.Location); ; m = m.Next() {
		from, to := m.Bounds(h.in.Location)
		if from.After(h.asOf) {
			break
		}
		win := Span{from.Unix(), to.Unix()}
		// Each class of each project's month, from the allocations one by one, whatever
		// their tasks' endings.
		wantHeld := map[int64]Breakdown{}
		wantWasted := map[int64]int64{}
		for id, s := range h.held {
			a := byID[id]
			if a.End == 0 {
				// An open allocation is held until the bill's as-of time: the month's end.
				s.End = min(s.End, win.End)
			}
			c := Classify(s, win, rollups[a.GPUID])
			if svc := tasks[a.TaskID].ServiceID; svc != 0 {
				in := s.Clip(win)
				c = Breakdown{Serving: h.servedIn(svc, in)}
				c.Idle = in.Seconds() - c.Serving
			}
			lost := wasted(tasks[a.TaskID], s, win)
			if a.RerunFrom > 0 {
				// An attempt that was rerun: its seconds from RerunFrom on are the rerun
				// class, and what it wasted; the seconds before classed by the readings.
				from := max(a.RerunFrom, s.Start)
				c = Classify(s, Span{win.Start, min(win.End, from)}, rollups[a.GPUID])
				c.Rerun = Span{from, s.End}.Clip(win).Seconds()
				lost = c.Rerun
			}
			if a.Trial {
				// A trial's run: all its seconds are the trial class, none wasted.
				c, lost = Breakdown{Trial: s.Clip(win).Seconds()}, 0
			}
			if c.Nominal() != s.Clip(win).Seconds() || c.Setup < 0 || c.Active < 0 || c.Serving < 0 || c.LowUtil < 0 || c.Idle < 0 || c.NoData < 0 || c.Rerun < 0 || c.Trial < 0 {
				t.Fatalf("%s: Classify(alloc %d, %s) = %+v, want parts ≥ 0 adding to %d", name, id, m, c, s.Clip(win).Seconds())
			}
			perAlloc[id] += c.Nominal()
			w := wantHeld[a.ProjectID]
			w.Add(c)
			wantHeld[a.ProjectID] = w
			wantWasted[a.ProjectID] += lost
		}
		in := h.in
		in.Month = m
		res, err := Compute(in)
		if err != nil {
			t.Fatalf("%s: Compute(%s) = %v", name, m, err)
		}
		all = append(all, res.Bills...)
		for _, b := range res.Bills {
			checkBill(t, name, b)
			if key := fmt.Sprintf("%d %s", b.ProjectID, m); b.NominalS != want[key] {
				t.Errorf("%s: project %s %s holds %d s, want %d", name, b.Project, m, b.NominalS, want[key])
			}
			if b.Held != wantHeld[b.ProjectID] || b.WastedS != wantWasted[b.ProjectID] {
				t.Errorf("%s: project %s %s: held %+v wasted %d, want %+v wasted %d", name, b.Project, m, b.Held, b.WastedS,
					wantHeld[b.ProjectID], wantWasted[b.ProjectID])
			}
			gotTotal += b.NominalS
		}
	}
	checkSurfaces(t, name, all)
	if gotTotal != wantTotal {
		t.Errorf("%s: bills hold %d card-seconds, allocations %d", name, gotTotal, wantTotal)
	}
	for id, s := range h.held {
		if perAlloc[id] != s.Seconds() {
			t.Errorf("%s: allocation %d classified %d s over the months, held %d", name, id, perAlloc[id], s.Seconds())
		}
	}
}

// checkBill checks a bill's own sums.
func checkBill(t testing.TB, name string, b Bill) {
	t.Helper()
	var nominal, lines, items, specItems int64
	var held Breakdown
	for _, l := range b.Lines {
		if l.Breakdown.Nominal() != l.NominalS || l.EffectiveS != l.Breakdown.Effective() {
			t.Fatalf("%s: line %+v: classes add to %d, nominal %d", name, l, l.Breakdown.Nominal(), l.NominalS)
		}
		if (l.Pricing == PricingCardHour || l.Pricing == PricingOverflow) && l.AmountFen != Amount(l.NominalS, l.RateFen) {
			t.Fatalf("%s: line %+v: amount is not the rounded seconds × rate", name, l)
		}
		nominal += l.NominalS
		lines += l.AmountFen
		held.Add(l.Breakdown)
	}
	for _, it := range b.Items {
		items += it.AmountFen
		if it.Kind == ItemSpec || it.Kind == ItemOverflow {
			specItems += it.AmountFen
		}
	}
	var wasted int64
	for _, l := range b.Lines {
		if l.WastedS < l.Rerun || l.WastedS > l.NominalS || (l.WastedS > l.Rerun && !IsInterrupted(l.Ending)) {
			t.Fatalf("%s: line %+v: wasted %d of %d s, ending %q", name, l, l.WastedS, l.NominalS, l.Ending)
		}
		wasted += l.WastedS
	}
	if wasted != b.WastedS {
		t.Errorf("%s: bill %s %s: lines waste %d s, bill says %d", name, b.Project, b.Month, wasted, b.WastedS)
	}
	if nominal != b.NominalS || held != b.Held || b.Held.Nominal() != b.NominalS {
		t.Errorf("%s: bill %s %s: lines hold %d s, bill says %d", name, b.Project, b.Month, nominal, b.NominalS)
	}
	if b.RerunFen != RerunFen(&b) || b.RerunFen > lines || (b.Held.Rerun == 0 && b.RerunFen != 0) {
		t.Errorf("%s: bill %s %s: reruns cost %d fen of lines' %d, rerun %d s", name, b.Project, b.Month, b.RerunFen, lines, b.Held.Rerun)
	}
	if b.TrialFen != TrialFen(&b) || b.TrialFen > lines || (b.Held.Trial == 0 && b.TrialFen != 0) {
		t.Errorf("%s: bill %s %s: trials cost %d fen of lines' %d, trial %d s", name, b.Project, b.Month, b.TrialFen, lines, b.Held.Trial)
	}
	if specItems != lines || items != b.TotalFen {
		t.Errorf("%s: bill %s %s: lines %d fen, spec items %d, items %d, total %d", name, b.Project, b.Month, lines, specItems, items, b.TotalFen)
	}
	// The idle section is the lines' idle and low-util seconds by task and spec, once each.
	type taskSpec struct {
		task int64
		spec string
	}
	idle := map[taskSpec]IdleLine{}
	for _, l := range b.Lines {
		if l.Idle != 0 {
			k := taskSpec{l.TaskID, l.Spec}
			il := idle[k]
			il.IdleS, il.LowUtilS, il.NominalS = il.IdleS+l.Idle, il.LowUtilS+l.LowUtil, il.NominalS+l.NominalS
			idle[k] = il
		}
	}
	for i, il := range b.Idle {
		want, ok := idle[taskSpec{il.TaskID, il.Spec}]
		if !ok || il.IdleS != want.IdleS || il.LowUtilS != want.LowUtilS || il.NominalS != want.NominalS ||
			(i > 0 && il.IdleS > b.Idle[i-1].IdleS) {
			t.Fatalf("%s: bill %s %s: idle line %d %+v, want %+v, most idle first", name, b.Project, b.Month, i, il, want)
		}
		delete(idle, taskSpec{il.TaskID, il.Spec})
	}
	if len(idle) != 0 {
		t.Errorf("%s: bill %s %s: idle section lacks %v", name, b.Project, b.Month, idle)
	}
}
