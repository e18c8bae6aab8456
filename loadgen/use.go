package loadgen

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Use is what a run used of the machine (this process: the generator, and the server when
// `kashi loadgen` started it in-process) and of the server's database pool.
type Use struct {
	// CPU is the process's CPU time over the run, Cores the cores it may use: CPU over
	// Cores × Elapsed is the share of the machine it kept busy.
	CPU   time.Duration
	Cores int
	// GC is the part of CPU the garbage collector took (runtime/metrics' estimate).
	GC time.Duration
	// MutexWait is the time goroutines waited on contended locks (sync.Mutex, RWMutex).
	MutexWait time.Duration
	// DBWaits and DBWait are the server's waits for a database connection
	// (go_sql_wait_count_total and go_sql_wait_duration_seconds_total on its /metrics);
	// DBKnown is false when the server does not export them.
	DBWaits int64
	DBWait  time.Duration
	DBKnown bool
	// Elapsed is the run's wall time; LoadAvg the machine's 1-minute load average at its end
	// (0 where the system does not tell).
	Elapsed time.Duration
	LoadAvg float64
}

// usage is one reading of the counters Use is the difference of.
type usage struct {
	cpu, gc, mutex time.Duration
	dbWaits        int64
	dbWait         time.Duration
	dbKnown        bool
}

// resources reads the counters now.
func (g *gen) resources(ctx context.Context) usage {
	var u usage
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		u.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	samples := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}, {Name: "/sync/mutex/wait/total:seconds"}}
	metrics.Read(samples)
	seconds := func(s metrics.Sample) time.Duration {
		if s.Value.Kind() != metrics.KindFloat64 {
			return 0
		}
		return time.Duration(s.Value.Float64() * float64(time.Second))
	}
	u.gc, u.mutex = seconds(samples[0]), seconds(samples[1])
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, g.base+"/metrics", nil)
	if err != nil {
		return u
	}
	resp, err := g.client.Do(req)
	if err != nil {
		return u
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusOK {
		u.dbWaits, u.dbWait, u.dbKnown = poolWaits(resp.Body)
	}
	return u
}

// poolWaits sums the database pools' waits on a Prometheus text page.
func poolWaits(page io.Reader) (int64, time.Duration, bool) {
	var (
		waits float64
		wait  float64
		known bool
	)
	sc := bufio.NewScanner(page)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		name, rest, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		if i := strings.IndexByte(name, '{'); i >= 0 {
			name = name[:i]
			if j := strings.LastIndexByte(line, '}'); j >= 0 {
				rest = strings.TrimSpace(line[j+1:])
			}
		}
		v, err := strconv.ParseFloat(strings.Fields(rest + " x")[0], 64)
		if err != nil {
			continue
		}
		switch name {
		case "go_sql_wait_count_total":
			waits, known = waits+v, true
		case "go_sql_wait_duration_seconds_total":
			wait += v
		}
	}
	return int64(waits), time.Duration(wait * float64(time.Second)), known
}

// since is the use between before and u, over a run of elapsed.
func (u usage) since(before usage, elapsed time.Duration) Use {
	return Use{CPU: u.cpu - before.cpu, Cores: runtime.GOMAXPROCS(0), GC: u.gc - before.gc, MutexWait: u.mutex - before.mutex,
		DBWaits: u.dbWaits - before.dbWaits, DBWait: u.dbWait - before.dbWait, DBKnown: u.dbKnown && before.dbKnown, Elapsed: elapsed,
		LoadAvg: loadAvg()}
}

// loadAvg reads the 1-minute load average from /proc/loadavg.
func loadAvg() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f, _ := strconv.ParseFloat(strings.Fields(string(b) + " 0")[0], 64)
	return f
}

// CPUShare is the share of the cores the process kept busy.
func (u Use) CPUShare() float64 {
	if u.Elapsed <= 0 || u.Cores <= 0 {
		return 0
	}
	return float64(u.CPU) / float64(u.Elapsed) / float64(u.Cores)
}

// Write prints the use on one line.
func (u Use) Write(w io.Writer) {
	db := "not exported by the server"
	if u.DBKnown {
		db = fmt.Sprintf("%d waits, %s", u.DBWaits, ms(u.DBWait))
	}
	fmt.Fprintf(w, "CPU %.1f s = %.0f %% of %d cores (GC %.0f %% of it; load average %.1f); lock waits %s; database pool %s\n",
		u.CPU.Seconds(), 100*u.CPUShare(), u.Cores, 100*share(u.GC, u.CPU), u.LoadAvg, ms(u.MutexWait), db)
}

func share(part, whole time.Duration) float64 {
	if whole <= 0 {
		return 0
	}
	return float64(part) / float64(whole)
}
