package billing

import (
	"cmp"
	"maps"
	"slices"
	"testing"
	"time"

	"kashi/models"
)

// fixture builds a Compute input for one month; times are hours from the month's start.
type fixture struct {
	in      Input
	tasks   []models.LedgerTask
	allocs  []models.LedgerAllocation
	rollups rollupList
	from    time.Time
	alloc   int64
}

func newFixture(t testing.TB, month, zone string) *fixture {
	t.Helper()
	m, err := ParseMonth(month)
	if err != nil {
		t.Fatal(err)
	}
	loc := mustLoc(t, zone)
	from, to := m.Bounds(loc)
	return &fixture{in: Input{Month: m, Location: loc, AsOf: to.Add(24 * time.Hour)}, from: from}
}

// at is the time h hours after the month's start.
func (f *fixture) at(h float64) time.Time {
	return f.from.Add(time.Duration(h * float64(time.Hour)))
}

func (f *fixture) project(id int64, name string) *fixture {
	f.in.Projects = append(f.in.Projects, models.Project{ID: id, Name: name})
	return f
}

func (f *fixture) price(project int64, spec string, rate, overflow int64) *fixture {
	f.in.Prices = append(f.in.Prices, models.Price{ProjectID: project, Spec: spec, RateFen: rate, OverflowRateFen: overflow})
	return f
}

func (f *fixture) plan(p models.BillingPlan) *fixture {
	f.in.Plans = append(f.in.Plans, p)
	return f
}

// task adds a task that ends at end hours (end < 0: still running) in state.
func (f *fixture) task(id, project int64, name, state string, units int64, end float64) *fixture {
	t := models.LedgerTask{ID: id, ProjectID: project, Name: name, Owner: "ana", GPUs: 1, State: state,
		Ending: models.TaskEnding(state, ""), OutputUnits: units}
	if end >= 0 {
		t.EndedAt = f.at(end).Unix()
	}
	f.tasks = append(f.tasks, t)
	return f
}

// hold adds an allocation of task on gpu from start to end hours (end < 0: open).
func (f *fixture) hold(task, project, gpu int64, spec string, start, end float64, overflow bool) *fixture {
	f.alloc++
	a := models.LedgerAllocation{ID: f.alloc, TaskID: task, GPUID: gpu, NodeID: 1 + (gpu-1)/8, ProjectID: project, Spec: spec,
		Start: f.at(start).Unix(), Overflow: overflow}
	if end >= 0 {
		a.End = f.at(end).Unix()
	}
	f.allocs = append(f.allocs, a)
	return f
}

// busy adds rollups for gpu from start to end hours with n readings, act active and idle.
func (f *fixture) busy(gpu int64, start, end float64, n, act, idle int64) *fixture {
	for b := f.at(start).Unix(); b < f.at(end).Unix(); b += models.Rollup5m {
		f.rollups = append(f.rollups, models.GPURollup{GPUID: gpu, Resolution: models.Rollup5m,
			Bucket: b - b%models.Rollup5m, N: n, NActive: act, NIdle: idle})
	}
	return f
}

// served records that service served a request in every 5-minute bucket from start to end
// hours.
func (f *fixture) served(service int64, start, end float64) *fixture {
	if f.in.Serving.Served == nil {
		f.in.Serving.Served = map[int64][]int64{}
	}
	for b := f.at(start).Unix(); b < f.at(end).Unix(); b += models.Rollup5m {
		f.in.Serving.Served[service] = append(f.in.Serving.Served[service], b-b%models.Rollup5m)
	}
	return f
}

// replicas makes tasks replicas of services (task id → service id).
func (f *fixture) replicas(of map[int64]int64) *fixture {
	f.in.Serving.Replicas = of
	return f
}

func (f *fixture) compute(t testing.TB) Result {
	t.Helper()
	f.in.Ledger, f.in.Tasks = ledgerOf(f.allocs, f.rollups), tasksOf(f.tasks)
	res, err := Compute(f.in)
	if err != nil {
		t.Fatalf("Compute = %v", err)
	}
	for _, b := range res.Bills {
		checkBill(t, "fixture", b)
	}
	return res
}

// billOf is the named project's bill.
func billOf(t testing.TB, res Result, project string) Bill {
	t.Helper()
	for _, b := range res.Bills {
		if b.Project == project {
			return b
		}
	}
	t.Fatalf("no bill for %q", project)
	return Bill{}
}

func item(b Bill, kind, spec string) Item {
	for _, it := range b.Items {
		if it.Kind == kind && it.Spec == spec {
			return it
		}
	}
	return Item{}
}

// rollupList is rollups held in memory, in any order, as tests build them.
type rollupList []models.GPURollup

// byGPU is each GPU's rollups sorted by bucket.
func (l rollupList) byGPU() map[int64][]models.GPURollup {
	out := map[int64][]models.GPURollup{}
	for _, r := range l {
		out[r.GPUID] = append(out[r.GPUID], r)
	}
	for _, rs := range out {
		slices.SortFunc(rs, func(a, b models.GPURollup) int { return cmp.Compare(a.Bucket, b.Bucket) })
	}
	return out
}

// ledgerOf gives allocations GPU by GPU, each GPU's by start, with the GPU's rollups of l,
// as the store's LedgerGPUs does.
func ledgerOf(allocs []models.LedgerAllocation, l rollupList) GPULedger {
	return func(each func(int64, []models.LedgerAllocation, []models.GPURollup) error) error {
		by := map[int64][]models.LedgerAllocation{}
		for _, a := range allocs {
			by[a.GPUID] = append(by[a.GPUID], a)
		}
		rs := l.byGPU()
		for _, g := range slices.Sorted(maps.Keys(by)) {
			as := by[g]
			slices.SortStableFunc(as, func(a, b models.LedgerAllocation) int { return cmp.Compare(a.Start, b.Start) })
			if err := each(g, as, rs[g]); err != nil {
				return err
			}
		}
		return nil
	}
}

// tasksOf gives the tasks of ts asked for, by id, as the store's LedgerTasks does.
func tasksOf(ts []models.LedgerTask) TaskSource {
	return func(ids []int64) ([]models.LedgerTask, error) {
		var out []models.LedgerTask
		for _, t := range ts {
			if _, ok := slices.BinarySearch(ids, t.ID); ok {
				out = append(out, t)
			}
		}
		slices.SortFunc(out, func(a, b models.LedgerTask) int { return cmp.Compare(a.ID, b.ID) })
		return out, nil
	}
}

// readings give l GPU by GPU, as the store's LedgerReadings does.
func (l rollupList) readings() Readings {
	return func(each func(int64, []models.GPURollup) error) error {
		by := l.byGPU()
		for _, g := range slices.Sorted(maps.Keys(by)) {
			if err := each(g, by[g]); err != nil {
				return err
			}
		}
		return nil
	}
}
