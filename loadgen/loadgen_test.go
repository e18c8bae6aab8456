package loadgen

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/api"
)

func apiAssignment(id int64, stop bool) api.Assignment { return api.Assignment{TaskID: id, Stop: stop} }

func validConfig() Config {
	return Config{Server: "http://127.0.0.1:8080", Agents: 4, GPUsPerAgent: 8, Viewers: 1, SubmitRate: 1,
		Duration: time.Second, SampleEvery: time.Second, PollEvery: time.Second, ViewEvery: time.Second, Timeout: time.Second,
		AssignmentsWait: 30 * time.Second, TaskRuntime: time.Second}
}

func TestValidate(t *testing.T) {
	for name, tc := range map[string]struct {
		change func(*Config)
		want   string // part of the error; "" for none
	}{
		"loopback v4":      {func(c *Config) {}, ""},
		"loopback v6":      {func(c *Config) { c.Server = "http://[::1]:9" }, ""},
		"localhost":        {func(c *Config) { c.Server = "http://localhost:9" }, ""},
		"other host":       {func(c *Config) { c.Server = "http://10.0.0.1:8080" }, "not on loopback"},
		"named host":       {func(c *Config) { c.Server = "https://kashi.example.com" }, "not on loopback"},
		"not a URL":        {func(c *Config) { c.Server = "127.0.0.1:8080" }, "not an http URL"},
		"too many agents":  {func(c *Config) { c.Agents = MaxAgents + 1 }, "--agents"},
		"too long":         {func(c *Config) { c.Duration = MaxDuration + time.Second }, "--duration"},
		"too fast":         {func(c *Config) { c.SubmitRate = MaxSubmitRate + 1 }, "--submit-rate"},
		"no timeout":       {func(c *Config) { c.Timeout = 0 }, "--timeout"},
		"8192 agents":      {func(c *Config) { c.Agents = 8192 }, ""},
		"wait too long":    {func(c *Config) { c.AssignmentsWait = 61 * time.Second }, "--assignments-wait"},
		"negative wait":    {func(c *Config) { c.AssignmentsWait = -time.Second }, "--assignments-wait"},
		"runtime too long": {func(c *Config) { c.TaskRuntime = 2 * time.Hour }, "--task-runtime"},
		"samples too rare": {func(c *Config) { c.SampleEvery = 2 * time.Hour }, "--sample-every"},
	} {
		t.Run(name, func(t *testing.T) {
			c := validConfig()
			tc.change(&c)
			err := c.Validate()
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("Validate() = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestReport(t *testing.T) {
	r := newRecorder()
	for i := 1; i <= 100; i++ {
		r.ok(KindIngest, time.Duration(i)*time.Millisecond)
	}
	r.fail(KindSubmit, "500 boom")
	r.busy(KindSubmit)
	r.retry(KindSubmit)
	rp := r.report(time.Second)
	want := map[string]KindReport{
		KindIngest: {OK: 100, P50: 50 * time.Millisecond, P99: 99 * time.Millisecond, Max: 100 * time.Millisecond},
		KindSubmit: {Errors: 1, Busy: 1, Retries: 1, FirstErrors: []string{"500 boom"}},
	}
	if diff := cmp.Diff(want, rp.Kinds); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	if rp.Errors() != 1 || rp.Busy() != 1 {
		t.Errorf("Errors, Busy = %d, %d, want 1, 1", rp.Errors(), rp.Busy())
	}
}

func TestMissed(t *testing.T) {
	held := &Report{PeakRSSMiB: 300, Kinds: map[string]KindReport{
		KindIngest: {P99: 40 * time.Millisecond}, KindBoard: {P99: 100 * time.Millisecond},
		KindSubmit: {P99: 90 * time.Millisecond}, KindAssign: {P99: 900 * time.Millisecond}}}
	for name, tc := range map[string]struct {
		change func(*Report)
		want   string
	}{
		"held":            {func(*Report) {}, ""},
		"errors first":    {func(r *Report) { r.Kinds[KindPoll] = KindReport{Errors: 2}; r.PeakRSSMiB = 600 }, "2 errors"},
		"slow board":      {func(r *Report) { r.Kinds[KindBoard] = KindReport{P99: 200 * time.Millisecond} }, "board p99 200.0 ms > 150.0 ms"},
		"late delivery":   {func(r *Report) { r.Kinds[KindAssign] = KindReport{P99: 2 * time.Second} }, "assign p99 2000.0 ms > 1000.0 ms"},
		"too much memory": {func(r *Report) { r.PeakRSSMiB = 600 }, "peak RSS 600 MiB > 512 MiB"},
	} {
		t.Run(name, func(t *testing.T) {
			r := &Report{PeakRSSMiB: held.PeakRSSMiB, Kinds: map[string]KindReport{}}
			for k, v := range held.Kinds {
				r.Kinds[k] = v
			}
			tc.change(r)
			if got := IssueTargets.Missed(r); got != tc.want {
				t.Errorf("Missed() = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestNearest(t *testing.T) {
	quiet := Use{CPU: 9 * time.Second, Cores: 2, Elapsed: 10 * time.Second, MutexWait: 50 * time.Millisecond,
		DBWait: 3 * time.Second, DBKnown: true, LoadAvg: 0.5}
	for name, tc := range map[string]struct {
		change func(*Use)
		want   string
		score  float64
	}{
		"pool waits":      {func(*Use) {}, "the database pool (waits for a connection)", 3},
		"own CPU first":   {func(u *Use) { u.CPU = 19 * time.Second }, "CPU", 0.95 / 0.9},
		"starved machine": {func(u *Use) { u.LoadAvg = 20 }, "the machine's CPU (load average 20.0 on 2 cores: other processes)", 10},
		"none ran out":    {func(u *Use) { u.DBKnown = false }, "CPU", 0.5},
	} {
		t.Run(name, func(t *testing.T) {
			u := quiet
			tc.change(&u)
			if got, score := u.Nearest(); got != tc.want || math.Abs(score-tc.score) > 1e-9 {
				t.Errorf("Nearest() = %q, %g, want %q, %g", got, score, tc.want, tc.score)
			}
		})
	}
}

func TestReadServerPage(t *testing.T) {
	page := `# HELP go_sql_wait_count_total The total number of connections waited for.
# TYPE go_sql_wait_count_total counter
go_sql_wait_count_total{db_name="kashi_read"} 3
go_sql_wait_count_total{db_name="kashi_write"} 4
go_sql_wait_duration_seconds_total{db_name="kashi_read"} 0.25
go_sql_wait_duration_seconds_total{db_name="kashi_write"} 1.5
kashi_gpus 8
`
	if sp := readServerPage(strings.NewReader(page)); sp.dbWaits != 7 || sp.dbWait != 1750*time.Millisecond || !sp.known {
		t.Errorf("readServerPage() = %d, %s, %v, want 7, 1.75s, true", sp.dbWaits, sp.dbWait, sp.known)
	}
	for _, bad := range []string{"kashi_gpus 8\n", "not a page {\n"} {
		if sp := readServerPage(strings.NewReader(bad)); sp.known {
			t.Errorf("readServerPage(%q) says it knows the pools' figures", bad)
		}
	}
}

// The server's own time of a kind is the quantile's bucket bound over the requests of the run
// alone, from the histogram read before and after it.
func TestServerTimes(t *testing.T) {
	histogram := func(counts ...int) string {
		var sb strings.Builder
		sb.WriteString("# TYPE kashi_http_request_seconds histogram\n")
		for i, le := range []string{"0.01", "0.05", "0.1", "+Inf"} {
			fmt.Fprintf(&sb, "kashi_http_request_seconds_bucket{method=\"POST\",route=%q,le=%q} %d\n", api.PathSamples, le, counts[i])
		}
		fmt.Fprintf(&sb, "kashi_http_request_seconds_sum{method=\"POST\",route=%q} 1\n", api.PathSamples)
		fmt.Fprintf(&sb, "kashi_http_request_seconds_count{method=\"POST\",route=%q} %d\n", api.PathSamples, counts[3])
		return sb.String()
	}
	// Before the run: 1,000 slow requests. In it: 100, of which 98 under 10 ms, 1 under 50, 1 over 100.
	before := readServerPage(strings.NewReader(histogram(0, 0, 0, 1000)))
	after := readServerPage(strings.NewReader(histogram(98, 99, 99, 1100)))
	got := serverTimes(before, after)
	want := map[string]ServerTimes{KindIngest: {Count: 100, P50: 0.01, P99: 0.05}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("serverTimes() (-want +got):\n%s", diff)
	}
	after = readServerPage(strings.NewReader(histogram(50, 50, 50, 1100)))
	if st := serverTimes(before, after)[KindIngest]; st.P50 != 0.01 || !math.IsInf(st.P99, 1) {
		t.Errorf("serverTimes() = %+v, want p50 0.01 and p99 past the last bound", st)
	}
	var out strings.Builder
	Use{Served: got}.Write(&out)
	if !strings.Contains(out.String(), "ingest p50 ≤ 10 ms, p99 ≤ 50 ms (100)") {
		t.Errorf("Use.Write() does not print the server's times:\n%s", out.String())
	}
}

// A simulated agent runs a task once, however often its list names it, and reports its
// exit when its runtime is up (at once when asked to stop).
func TestNodeTasks(t *testing.T) {
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	var n nodeTasks
	n.ends = map[int64]time.Time{}
	if !n.take(apiAssignment(1, false), t0.Add(time.Minute)) || n.take(apiAssignment(1, false), t0.Add(time.Hour)) {
		t.Fatal("take() started task 1 twice, or not at all")
	}
	n.take(apiAssignment(2, false), t0.Add(time.Hour))
	n.take(apiAssignment(2, true), t0.Add(time.Hour))
	if got := n.due(t0); len(got) != 1 || got[0] != 2 {
		t.Errorf("due(t0) = %v, want the stopped task 2", got)
	}
	if got := n.due(t0.Add(time.Minute)); len(got) != 1 || got[0] != 1 {
		t.Errorf("due(t0+1m) = %v, want task 1", got)
	}
	if n.take(apiAssignment(1, false), t0.Add(time.Hour)) || n.running() != "" {
		t.Errorf("a task that exited started again, or is still running: %q", n.running())
	}
}
