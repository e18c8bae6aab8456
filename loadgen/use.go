package loadgen

import (
	"context"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"os"
	"runtime"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"kashi/api"
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
	// Served is each kind's time as the server measured it, by kind; empty when the server
	// does not export it. The generator's latencies include its own waits for a core on a
	// shared machine; these do not.
	Served map[string]ServerTimes
	// Elapsed is the run's wall time; LoadAvg the machine's 1-minute load average at its end
	// (0 where the system does not tell).
	Elapsed time.Duration
	LoadAvg float64
}

// usage is one reading of the counters Use is the difference of.
type usage struct {
	cpu, gc, mutex time.Duration
	server         serverPage
}

// serverPage is what the run reads of the server's /metrics.
type serverPage struct {
	// known is false when the page could not be read or lacked the pools' figures.
	known   bool
	dbWaits int64
	dbWait  time.Duration
	// routes is kashi_http_request_seconds by "METHOD route": each bucket's cumulative
	// count by its upper bound (+Inf included).
	routes map[string]map[float64]uint64
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
		u.server = readServerPage(resp.Body)
	}
	return u
}

// readServerPage reads the database pools' waits and the requests' times off a Prometheus
// text page.
func readServerPage(page io.Reader) serverPage {
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(page)
	if err != nil {
		return serverPage{}
	}
	var sp serverPage
	var waits, wait float64
	for _, f := range families["go_sql_wait_count_total"].GetMetric() {
		waits, sp.known = waits+scalar(f), true
	}
	for _, f := range families["go_sql_wait_duration_seconds_total"].GetMetric() {
		wait += scalar(f)
	}
	sp.dbWaits, sp.dbWait = int64(waits), time.Duration(wait*float64(time.Second))
	sp.routes = map[string]map[float64]uint64{}
	for _, m := range families["kashi_http_request_seconds"].GetMetric() {
		var method, route string
		for _, l := range m.GetLabel() {
			switch l.GetName() {
			case "method":
				method = l.GetValue()
			case "route":
				route = l.GetValue()
			}
		}
		h := m.GetHistogram()
		buckets := map[float64]uint64{math.Inf(1): h.GetSampleCount()}
		for _, b := range h.GetBucket() {
			buckets[b.GetUpperBound()] = b.GetCumulativeCount()
		}
		sp.routes[method+" "+route] = buckets
	}
	return sp
}

// scalar is a counter's, gauge's or untyped metric's value.
func scalar(m *dto.Metric) float64 {
	switch {
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	default:
		return m.GetUntyped().GetValue()
	}
}

// kindRoutes are the routes whose time the server measures of each kind of request the
// generator times.
var kindRoutes = map[string]string{
	KindIngest: http.MethodPost + " " + api.PathSamples,
	KindStatus: http.MethodPost + " " + api.PathTaskStatus + ":id/status",
	KindBoard:  http.MethodGet + " /",
	KindSubmit: http.MethodPost + " /api/v1/tasks",
}

// ServerTimes is one kind of request's time as the server measured it
// (kashi_http_request_seconds over the run): how many, and the bound of the histogram's
// bucket each quantile falls in (+Inf past the last bound).
type ServerTimes struct {
	Count    uint64
	P50, P99 float64
}

// serverTimes is the server's time of each kind between before and after.
func serverTimes(before, after serverPage) map[string]ServerTimes {
	times := map[string]ServerTimes{}
	for kind, route := range kindRoutes {
		now, then := after.routes[route], before.routes[route]
		total := now[math.Inf(1)] - then[math.Inf(1)]
		if total == 0 {
			continue
		}
		bounds := make([]float64, 0, len(now))
		for b := range now {
			bounds = append(bounds, b)
		}
		slices.Sort(bounds)
		at := func(q float64) float64 {
			for _, b := range bounds {
				if float64(now[b]-then[b]) >= q*float64(total) {
					return b
				}
			}
			return math.Inf(1)
		}
		times[kind] = ServerTimes{Count: total, P50: at(0.50), P99: at(0.99)}
	}
	return times
}

// since is the use between before and u, over a run of elapsed.
func (u usage) since(before usage, elapsed time.Duration) Use {
	return Use{CPU: u.cpu - before.cpu, Cores: runtime.GOMAXPROCS(0), GC: u.gc - before.gc, MutexWait: u.mutex - before.mutex,
		DBWaits: u.server.dbWaits - before.server.dbWaits, DBWait: u.server.dbWait - before.server.dbWait,
		DBKnown: u.server.known && before.server.known, Served: serverTimes(before.server, u.server), Elapsed: elapsed,
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
	if len(u.Served) == 0 {
		return
	}
	kinds := slices.Sorted(maps.Keys(u.Served))
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		st := u.Served[k]
		parts[i] = fmt.Sprintf("%s p50 %s, p99 %s (%d)", k, bound(st.P50), bound(st.P99), st.Count)
	}
	fmt.Fprintf(w, "the server's own time (kashi_http_request_seconds): %s\n", strings.Join(parts, "; "))
}

// bound prints a histogram bucket's upper bound as the bound a quantile is under.
func bound(seconds float64) string {
	if math.IsInf(seconds, 1) {
		return "> the last bucket"
	}
	return "≤ " + strconv.FormatFloat(seconds*1000, 'f', -1, 64) + " ms"
}

func share(part, whole time.Duration) float64 {
	if whole <= 0 {
		return 0
	}
	return float64(part) / float64(whole)
}
