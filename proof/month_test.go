package proof

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"kashi/models"
)

// TestMonth runs `kashi serve --demo` at the demo clock's top speed for -month-days
// simulated days (a fresh demo, which fills its past month beside the first of them), on
// SQLite, sampling the server's memory and the database's table sizes each day, then stops
// it and checks the ledger as TestCrash does (no card given twice, no task run twice, the
// allocations' seconds conserved), and: (a) the tables kept for a while hold nothing older than their retention
// (raw samples; notifications, scaling events, pools' size samples, alerts; expired
// sessions), and the ledger's tables grow with the work done, not with time; (b) the
// server's peak memory on the last day is within memoryBound of that of the first day that
// began after the past was filled; (c) every month the run touched is billed exactly as the
// ledger holds, priced at the month's rates; (d) the utilization reports of the weeks of
// each such month add up to the month's bills (see weeksAddUp for the weeks across its
// edges).
func TestMonth(t *testing.T) {
	if *monthDays == 0 {
		t.Skip("asked for with -month-days N")
	}
	monthProof(t, sqliteDB(t))
}

// The month proof's settings.
const (
	// monthSpeed is the demo clock's speed: --demo-speed's maximum, a day in 24 s.
	monthSpeed = 3600
	// memoryBound: the last day's peak resident memory and heap may exceed the first day's
	// peak by at most half, plus memorySlack (the collector's and the allocator's noise).
	memoryBound = 1.5
	memorySlack = 32 << 20
	// pruneSlack is how long after its cutoff a row may still be there: the history loop
	// runs every hour of clock time and the rollups (which prune the samples) every 5
	// minutes, but at monthSpeed a pass that takes a second of real time is an hour late, and
	// on a loaded machine passes take seconds: a simulated day, 24 s of real time. (Before
	// samples were pruned by rows, they lagged 16 days behind after a month.)
	pruneSlack = 24 * time.Hour
	// eventsPerTask bounds the task events per task: the ledger grows with the tasks, not
	// with time.
	eventsPerTask = 16
)

// retentions are the proof's --retention and --history-retention: a quarter and a third of
// the run, at most the defaults' week and ten days, so that even a short run prunes.
func retentions(days float64) (samples, history time.Duration) {
	span := time.Duration(days * float64(24*time.Hour))
	return min(span/4, 7*24*time.Hour), min(span/3, 10*24*time.Hour)
}

func monthProof(t *testing.T, db database) {
	ctx := context.Background()
	addr := freeAddr(t)
	logPath := filepath.Join(t.TempDir(), "serve.log")
	defer keepLog(t, logPath)
	keepSamples, keepHistory := retentions(*monthDays)
	srv := startArgs(t, addr, logPath, "serve", "--demo", "--db", db.DSN, "--addr", addr, "--join-token", joinToken,
		"--demo-speed", fmt.Sprint(monthSpeed), "--retention", keepSamples.String(), "--history-retention", keepHistory.String(),
		"--log-level", "info", "--lang", "en")
	began := time.Now()
	if err := srv.waitHealthy(2 * time.Minute); err != nil {
		t.Fatal(err)
	}
	conn, err := sql.Open(db.Driver, db.Source)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()

	// The days count from the server's start; the demo's past month fills beside the first
	// of them (a fresh demo's), so memory is compared from the first day that began after it.
	day := time.Duration(float64(24*time.Hour) / monthSpeed)
	days := int(*monthDays + 0.999)
	var mem []memDay
	var sizes []map[string]int64
	baseline := -1
	for d := 0; d < days; d++ {
		if baseline < 0 && logHas(logPath, `msg="demo past filled"`) {
			baseline = d
		}
		m, err := watchDay(srv, min(day, time.Duration((*monthDays-float64(d))*float64(day))))
		if err != nil {
			t.Fatalf("day %d: %v", d+1, err)
		}
		mem = append(mem, m)
		s, err := tableSizes(ctx, conn)
		if err != nil {
			t.Fatalf("day %d: table sizes: %v", d+1, err)
		}
		sizes = append(sizes, s)
	}
	srv.stop(t)
	ran := time.Since(began)
	t.Logf("%g days at speed %d in %s", *monthDays, monthSpeed, ran.Round(time.Second))
	if baseline < 0 || baseline == len(mem)-1 {
		t.Logf("the demo's past was still filling on the last day but one: memory is compared from day 1")
		baseline = 0
	}

	v := violations{}
	logSizes(t, sizes)
	last, err := lastStamp(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	prunedByRetention(ctx, conn, last, keepSamples, keepHistory, v)
	ledgerGrowsWithWork(sizes[len(sizes)-1], v)
	memoryBounded(t, mem[baseline:], baseline+1, v)

	l, err := readLedger(ctx, db)
	if err != nil {
		t.Fatalf("read the ledger: %v", err)
	}
	l.noGPUGivenTwice(v)
	l.noTaskRunTwice(v)
	if ledgerS, taskS := l.ledgerConserved(v); ledgerS != taskS {
		v.add("ledger not conserved", "ended tasks' allocations hold %d card-seconds, the tasks %d", ledgerS, taskS)
	}
	store, err := models.Open(ctx, db.DSN, models.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	start := last.Add(-ran * monthSpeed)
	for _, m := range monthsBetween(ctx, t, store, start, last) {
		monthBilled(ctx, t, store, l, m, last, v)
	}
	if len(v) > 0 {
		t.Errorf("invariants broken:\n%s", v)
	}
}

// logHas reports whether the server's log holds want.
func logHas(logPath, want string) bool {
	b, err := os.ReadFile(logPath)
	return err == nil && bytes.Contains(b, []byte(want))
}

// memDay is one simulated day's peak memory of the server.
type memDay struct {
	RSS, Heap int64
}

// watchDay samples the server's resident memory every second and its heap in use every
// five for d, and returns the peaks.
func watchDay(srv *server, d time.Duration) (memDay, error) {
	var m memDay
	end := time.Now().Add(d)
	for i := 0; time.Now().Before(end); i++ {
		select {
		case <-srv.done:
			return m, fmt.Errorf("kashi serve exited: %v", srv.err)
		default:
		}
		if rss, err := residentBytes(srv.cmd.Process.Pid); err == nil {
			m.RSS = max(m.RSS, rss)
		}
		if i%5 == 0 {
			if heap, err := heapInUse(srv.Addr); err == nil {
				m.Heap = max(m.Heap, heap)
			}
		}
		time.Sleep(min(time.Second, time.Until(end)))
	}
	return m, nil
}

// residentBytes is VmRSS of the process.
func residentBytes(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmRSS:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

// heapInUse is go_memstats_heap_inuse_bytes from the server's /metrics.
func heapInUse(addr string) (int64, error) {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "go_memstats_heap_inuse_bytes "); ok {
			f, err := strconv.ParseFloat(v, 64)
			io.Copy(io.Discard, resp.Body)
			return int64(f), err
		}
	}
	return 0, fmt.Errorf("no go_memstats_heap_inuse_bytes on /metrics (%v)", sc.Err())
}

// memoryBounded: the last day's peaks are within memoryBound of the first day's; mem's
// first day is the run's day firstDay.
func memoryBounded(t *testing.T, mem []memDay, firstDay int, v violations) {
	first, last := mem[0], mem[len(mem)-1]
	t.Logf("peak RSS %.0f MiB on day %d, %.0f MiB on day %d (highest %.0f MiB); peak heap in use %.0f MiB, %.0f MiB (highest %.0f MiB)",
		mib(first.RSS), firstDay, mib(last.RSS), firstDay+len(mem)-1, mib(slices.MaxFunc(mem, byRSS).RSS),
		mib(first.Heap), mib(last.Heap), mib(slices.MaxFunc(mem, byHeap).Heap))
	for _, c := range []struct {
		what        string
		first, last int64
	}{{"resident memory", first.RSS, last.RSS}, {"heap in use", first.Heap, last.Heap}} {
		if bound := int64(float64(c.first)*memoryBound) + memorySlack; c.last > bound {
			v.add("memory grew", "%s peaked at %.0f MiB on the last day, over %.0f MiB (day %d: %.0f MiB)",
				c.what, mib(c.last), mib(bound), firstDay, mib(c.first))
		}
	}
}

func byRSS(a, b memDay) int  { return cmpInt(a.RSS, b.RSS) }
func byHeap(a, b memDay) int { return cmpInt(a.Heap, b.Heap) }
func mib(b int64) float64    { return float64(b) / (1 << 20) }

// tableSizes counts the rows of every table.
func tableSizes(ctx context.Context, conn *sql.DB) (map[string]int64, error) {
	var tables []string
	err := each(ctx, conn, `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`, func(r *sql.Rows) error {
		var name string
		err := r.Scan(&name)
		tables = append(tables, name)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make(map[string]int64, len(tables))
	for _, name := range tables {
		var n int64
		if err := conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM "`+name+`"`).Scan(&n); err != nil {
			return nil, err
		}
		out[name] = n
	}
	return out, nil
}

// logSizes logs each table's rows on the first and last day and its growth per day between.
func logSizes(t *testing.T, sizes []map[string]int64) {
	first, last := sizes[0], sizes[len(sizes)-1]
	names := make([]string, 0, len(last))
	for name := range last {
		names = append(names, name)
	}
	slices.Sort(names)
	var b strings.Builder
	fmt.Fprintf(&b, "rows: table, day 1, day %d, per day between\n", len(sizes))
	for _, name := range names {
		per := 0.0
		if len(sizes) > 1 {
			per = float64(last[name]-first[name]) / float64(len(sizes)-1)
		}
		fmt.Fprintf(&b, "  %-24s %9d %9d %+10.0f\n", name, first[name], last[name], per)
	}
	t.Log(b.String())
}

// prunedByRetention: no raw sample is older than --retention, and no notification, scaling
// event, pool size sample or alert (by when it was resolved, or else last raised) older
// than --history-retention, each allowing pruneSlack; no session has expired.
func prunedByRetention(ctx context.Context, conn *sql.DB, now time.Time, samples, history time.Duration, v violations) {
	var oldestSample sql.NullInt64
	if err := conn.QueryRowContext(ctx, `SELECT MIN(ts) FROM gpu_samples`).Scan(&oldestSample); err != nil {
		v.add("not pruned", "gpu_samples: %v", err)
	} else if cut := now.Add(-samples - pruneSlack); oldestSample.Valid && oldestSample.Int64 < cut.Unix() {
		v.add("not pruned", "gpu_samples holds a sample of %s, before %s", time.Unix(oldestSample.Int64, 0).UTC(), cut)
	}
	cut := now.Add(-history - pruneSlack)
	for _, q := range []struct{ table, column string }{
		{"notifications", "created_at"}, {"scaling_events", "at"}, {"pool_size_samples", "at"}, {"alerts", "COALESCE(resolved_at, last_at)"},
	} {
		var n int64
		if err := conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+q.table+` WHERE `+q.column+` < ?`, cut).Scan(&n); err != nil {
			v.add("not pruned", "%s: %v", q.table, err)
		} else if n > 0 {
			v.add("not pruned", "%s holds %d rows of before %s", q.table, n, cut)
		}
	}
	var expired int64
	if err := conn.QueryRowContext(ctx, `SELECT COUNT(*) FROM sessions WHERE expires_at < ?`, now.Add(-pruneSlack)).Scan(&expired); err != nil || expired > 0 {
		v.add("not pruned", "sessions: %d expired (err %v)", expired, err)
	}
}

// ledgerGrowsWithWork: the ledger's tables grow with the tasks run, not with time: at most
// eventsPerTask events a task.
func ledgerGrowsWithWork(sizes map[string]int64, v violations) {
	if tasks, events := sizes["tasks"], sizes["task_events"]; events > eventsPerTask*tasks {
		v.add("ledger grows with time", "%d task events for %d tasks", events, tasks)
	}
}
