package billing

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"kashi/models"
)

// TestMain removes the benchmarks' shared store when the run ends.
func TestMain(m *testing.M) {
	code := m.Run()
	if benchDir != "" {
		os.RemoveAll(benchDir)
	}
	os.Exit(code)
}

// benchScale is the size of the month benchmark's store.
type benchScale struct {
	projects, allocations, nodes int // nodes of 8 GPUs
}

// benchFull is the month the bills are sized for (1,000 projects, a million allocations);
// benchShort the one of -short runs (CI's smoke run of every benchmark), small enough to
// build in well under a second.
var (
	benchFull  = benchScale{projects: 1000, allocations: 1_000_000, nodes: 32}
	benchShort = benchScale{projects: 20, allocations: 1000, nodes: 2}
	// benchFleet is issue #37's fleet: 32,768 GPUs and 10,000 projects, with the same million
	// allocations spread over them.
	benchFleet = benchScale{projects: 10_000, allocations: 1_000_000, nodes: 4096}
)

// scale is the benchmarks' size: benchShort with -short.
func scale() benchScale {
	if testing.Short() {
		return benchShort
	}
	return benchFull
}

var (
	benchOnce sync.Once
	benchDir  string
	benchErr  error
	benchPath = map[bool]string{} // with rollups → store directory
)

// benchStores builds, once per run, two SQLite stores for March 2026: 1,000 projects and
// 1,000,000 allocation intervals on 256 GPUs (with -short 20 projects and 1,000 intervals on
// 16 GPUs), from tasks of 1, 2, 4 or 8 GPUs of one node
// running 1 to 11 minutes one after another on each GPU (a few still open at the end); one
// store without readings and one with a 5-minute rollup for every bucket of every GPU of the
// month (256 × 8,928). Rows go in through raw batched INSERTs.
func benchStores(b *testing.B) {
	benchOnce.Do(func() {
		benchDir, benchErr = os.MkdirTemp("", "kashi-bench-")
		if benchErr != nil {
			return
		}
		lr := benchRows(scale())
		for _, withRollups := range []bool{false, true} {
			dir := fmt.Sprintf("%s/rollups-%v", benchDir, withRollups)
			if benchErr = os.MkdirAll(dir, 0o755); benchErr != nil {
				return
			}
			if withRollups {
				lr.rollups = benchRollups(lr)
			}
			st := openRawStore(b, dir)
			st.load(b, lr)
			ctx := context.Background()
			benchErr = st.SetPrice(ctx, models.Price{Spec: lr.spec, FromMonth: "2026-01", RateFen: 1500, OverflowRateFen: 2500}, lr.provisioned[0])
			st.Close()
			benchPath[withRollups] = dir
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
}

func benchRows(sc benchScale) ledgerRows {
	r := rand.New(rand.NewPCG(1, 2))
	loc, _ := time.LoadLocation(models.DefaultBillingTimeZone)
	from, to := Month{2026, time.March}.Bounds(loc)
	lr := ledgerRows{nodes: sc.nodes, spec: "A100-80G", provisioned: [2]time.Time{from.Add(-24 * time.Hour), to.Add(24 * time.Hour)}}
	for p := 0; p < sc.projects; p++ {
		lr.projects = append(lr.projects, fmt.Sprintf("project-%04d", p))
	}
	// Each GPU runs one task at a time: a task starts when all its GPUs are free.
	free := make([]int64, 8*sc.nodes)
	for g := range free {
		free[g] = from.Unix()
	}
	sizes := []int{1, 2, 4, 8}
	for misses := 0; len(lr.allocations) < sc.allocations; {
		if misses > 100_000 {
			panic("billing: benchmark month is full before 1,000,000 allocations")
		}
		gpus := min(sizes[r.IntN(4)], sc.allocations-len(lr.allocations))
		first := r.IntN(sc.nodes)*8 + r.IntN(8-gpus+1)
		start := int64(0)
		for g := first; g < first+gpus; g++ {
			start = max(start, free[g])
		}
		start += r.Int64N(60)
		end := start + 60 + r.Int64N(600)
		if end > to.Unix() {
			misses++
			continue
		}
		id := int64(len(lr.tasks) + 1)
		t := models.LedgerTask{ID: id, ProjectID: 1 + r.Int64N(int64(sc.projects)), Name: fmt.Sprintf("job-%d", id), Owner: "bench",
			GPUs: gpus, State: models.TaskSucceeded, EndedAt: end}
		if r.IntN(20) == 0 {
			t.State = models.TaskFailed
		}
		lr.tasks = append(lr.tasks, t)
		lr.taskStart = append(lr.taskStart, start)
		for g := first; g < first+gpus; g++ {
			free[g] = end
			lr.allocations = append(lr.allocations, models.LedgerAllocation{ID: int64(len(lr.allocations) + 1), TaskID: id,
				GPUID: int64(g + 1), NodeID: int64(g/8 + 1), ProjectID: t.ProjectID, Start: start, End: t.EndedAt,
				Overflow: r.IntN(50) == 0})
		}
	}
	// A few of the last tasks are still running: those last on all their GPUs.
	last := map[int64]bool{}
	opened := 0
	for i := len(lr.allocations) - 1; i >= 0 && opened < 8; {
		id := lr.allocations[i].TaskID
		j := i
		latest := true
		for ; j >= 0 && lr.allocations[j].TaskID == id; j-- {
			latest = latest && !last[lr.allocations[j].GPUID]
			last[lr.allocations[j].GPUID] = true
		}
		if latest {
			opened++
			lr.tasks[id-1].State, lr.tasks[id-1].EndedAt = models.TaskRunning, 0
			for k := j + 1; k <= i; k++ {
				lr.allocations[k].End = 0
			}
		}
		i = j
	}
	return lr
}

// benchRollups is one 5-minute rollup per GPU per bucket of the month, 30 readings each.
func benchRollups(lr ledgerRows) []models.GPURollup {
	r := rand.New(rand.NewPCG(3, 4))
	from, to := lr.provisioned[0].Add(24*time.Hour).Unix(), lr.provisioned[1].Add(-24*time.Hour).Unix()
	var out []models.GPURollup
	for g := int64(1); g <= int64(8*lr.nodes); g++ {
		for b := from - from%models.Rollup5m; b < to; b += models.Rollup5m {
			act := r.Int64N(31)
			out = append(out, models.GPURollup{GPUID: g, Resolution: models.Rollup5m, Bucket: b, N: 30, NActive: act, NIdle: r.Int64N(31 - act)})
		}
	}
	return out
}

// BenchmarkMonthBills times a month's bills for 1,000 projects from 1,000,000 allocation
// intervals on SQLite: the store reads (allocations, tasks, rollups, nodes, prices, plans,
// adjustments, issued bills) and the computation, as MonthBills does them for a page.
func BenchmarkMonthBills(b *testing.B) {
	benchStores(b)
	for _, withRollups := range []bool{false, true} {
		b.Run(fmt.Sprintf("rollups=%v", withRollups), func(b *testing.B) {
			benchMonthBills(b, benchPath[withRollups], scale())
		})
	}
}

// BenchmarkMonthBillsFleet is BenchmarkMonthBills for 32,768 GPUs (4,096 nodes) and 10,000
// projects (benchFleet), without readings: a month of 5-minute rollups of 32,768 GPUs is
// 292 million rows, more than this benchmark builds; the rollups' cost per GPU is
// BenchmarkMonthBills's. With -short it is benchShort's.
func BenchmarkMonthBillsFleet(b *testing.B) {
	sc := benchFleet
	if testing.Short() {
		sc = benchShort
	}
	dir := b.TempDir()
	buildMonth(b, dir, sc)
	benchMonthBills(b, dir, sc)
}

// buildMonth writes the month of benchRows(sc), without readings, into a store in dir.
func buildMonth(b *testing.B, dir string, sc benchScale) {
	lr := benchRows(sc)
	st := openRawStore(b, dir)
	defer st.Close()
	st.load(b, lr)
	if err := st.SetPrice(context.Background(), models.Price{Spec: lr.spec, FromMonth: "2026-01", RateFen: 1500, OverflowRateFen: 2500}, lr.provisioned[0]); err != nil {
		b.Fatal(err)
	}
}

// benchMonthBills times MonthBills of March 2026 on the store in dir, built at scale sc, and
// reports its peak heap.
func benchMonthBills(b *testing.B, dir string, sc benchScale) {
	st, err := models.Open(context.Background(), dir+"/kashi.db", models.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	now := time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	runtime.GC()
	peak := heapPeak()
	b.ResetTimer()
	var res Result
	for i := 0; i < b.N; i++ {
		// Each call starts from a collected heap, as one computation of a month's bills
		// would: without it the previous call's bills, dead but not yet collected, count
		// in this call's peak.
		b.StopTimer()
		res = Result{}
		runtime.GC()
		b.StartTimer()
		if res, err = MonthBills(context.Background(), st, "2026-03", now); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(peak())/(1<<20), "peak-heap-MiB")
	var lines int
	for _, bill := range res.Bills {
		lines += len(bill.Lines)
	}
	if len(res.Bills) != sc.projects {
		b.Fatalf("%d bills, want %d", len(res.Bills), sc.projects)
	}
	b.ReportMetric(float64(len(res.Bills)), "bills")
	b.ReportMetric(float64(lines), "lines")
	b.ReportMetric(float64(sc.allocations)*float64(b.N)/b.Elapsed().Seconds(), "allocations/s")
}

// heapPeak samples the live heap every millisecond until the returned function is called,
// which gives the largest figure seen (heap objects, live and not yet collected).
func heapPeak() func() uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	done, result := make(chan struct{}), make(chan uint64)
	go func() {
		var peak uint64
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			peak = max(peak, sample[0].Value.Uint64())
			select {
			case <-done:
				result <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		return <-result
	}
}

// BenchmarkMonthCompute times Compute on the month of BenchmarkMonthBills, loaded once:
// what the month costs beyond the store reads of tasks, prices and the like (the allocations
// and rollups are streamed from the store while Compute classifies).
func BenchmarkMonthCompute(b *testing.B) {
	benchStores(b)
	for _, withRollups := range []bool{false, true} {
		b.Run(fmt.Sprintf("rollups=%v", withRollups), func(b *testing.B) {
			st, err := models.Open(context.Background(), benchPath[withRollups]+"/kashi.db", models.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			in, err := Load(context.Background(), st, Request{Month: Month{2026, time.March}, AsOf: time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC)})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := Compute(in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// bigBill is one bill with n lines.
func bigBill(n int) Bill {
	b := Bill{ProjectID: 1, Project: "大模型-pretrain", Month: "2026-03", Mode: "payg", AsOf: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)}
	for i := 0; i < n; i++ {
		l := Line{TaskID: int64(i + 1), Task: fmt.Sprintf("训练任务-%d, step %d", i, i%7), Owner: "张三", State: models.TaskSucceeded,
			Spec: "A100-80G", Pricing: PricingCardHour, Breakdown: Breakdown{Active: int64(3600 + i), Idle: 1800, NoData: 7},
			RateFen: 1500}
		l.NominalS, l.EffectiveS = l.Breakdown.Nominal(), l.Active
		l.AmountFen = Amount(l.NominalS, l.RateFen)
		b.Lines = append(b.Lines, l)
		b.Idle = append(b.Idle, IdleLine{TaskID: l.TaskID, Task: l.Task, Owner: l.Owner, Spec: l.Spec, IdleS: l.Idle, NominalS: l.NominalS})
	}
	return b
}

type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// benchLines are the bill sizes of the writer benchmarks: with -short only small bills.
func benchLines(full ...int) []int {
	if testing.Short() {
		return []int{1_000}
	}
	return full
}

// BenchmarkCSV streams bills of 1,000 to 100,000 lines: B/op and allocs/op stay flat while
// the output grows with the lines.
func BenchmarkCSV(b *testing.B) {
	for _, n := range benchLines(1_000, 10_000, 100_000) {
		bill := []Bill{bigBill(n)}
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			var w countingWriter
			for i := 0; i < b.N; i++ {
				if err := WriteCSV(&w, bill); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(w.n)/float64(b.N), "csv-bytes/op")
		})
	}
}

// TestCSVFlatMemory: writing 100 times the lines allocates no more.
func TestCSVFlatMemory(t *testing.T) {
	small, big := []Bill{bigBill(1000)}, []Bill{bigBill(100_000)}
	run := func(bills []Bill) float64 {
		return testing.AllocsPerRun(3, func() {
			if err := WriteCSV(io.Discard, bills); err != nil {
				t.Fatal(err)
			}
		})
	}
	if a, b := run(small), run(big); b > a {
		t.Errorf("WriteCSV allocates %v times for 1,000 lines and %v for 100,000; want no growth", a, b)
	}
}

// BenchmarkXLSX writes bills of 10,000 and 100,000 lines as a workbook (the Lines sheet is
// streamed; Summary and Idle are not).
func BenchmarkXLSX(b *testing.B) {
	for _, n := range benchLines(10_000, 100_000) {
		bill := []Bill{bigBill(n)}
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			var w countingWriter
			for i := 0; i < b.N; i++ {
				if err := WriteXLSX(&w, bill, EnglishSheets); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(w.n)/float64(b.N), "xlsx-bytes/op")
		})
	}
}
