package loadgen

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// recorder collects latencies and errors from every client.
type recorder struct {
	mu    sync.Mutex
	kinds map[string]*kindStats
}

type kindStats struct {
	lat []time.Duration
	// untimed counts answers whose latency is not the server's (a long poll's is its wait).
	untimed int
	errors  int
	// busy counts 503 and 429 answers: the server said to come back later.
	busy int
	// retries counts requests sent again after a busy answer.
	retries int
	// firstErrors keeps a few error messages to show.
	firstErrors []string
}

func newRecorder() *recorder { return &recorder{kinds: map[string]*kindStats{}} }

func (r *recorder) stats(kind string) *kindStats {
	k := r.kinds[kind]
	if k == nil {
		k = &kindStats{}
		r.kinds[kind] = k
	}
	return k
}

func (r *recorder) ok(kind string, d time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := r.stats(kind)
	k.lat = append(k.lat, d)
}

func (r *recorder) count(kind string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stats(kind).untimed++
}

func (r *recorder) fail(kind, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := r.stats(kind)
	k.errors++
	if len(k.firstErrors) < 3 {
		k.firstErrors = append(k.firstErrors, msg)
	}
}

func (r *recorder) busy(kind string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stats(kind).busy++
}

func (r *recorder) retry(kind string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.stats(kind).retries++
}

// Report is what a run measured.
type Report struct {
	Elapsed time.Duration
	Kinds   map[string]KindReport
	// PeakRSSMiB is this process's peak resident memory (the server's too when it runs
	// in-process); 0 where the system does not tell.
	PeakRSSMiB int
	// Use is what the run used of the machine and of the server's database pool.
	Use Use
}

// KindReport is one kind of request's outcome.
type KindReport struct {
	OK, Errors, Busy, Retries int
	P50, P99, Max             time.Duration
	FirstErrors               []string
}

// Busy is the number of busy answers of every kind.
func (rp *Report) Busy() int {
	n := 0
	for _, k := range rp.Kinds {
		n += k.Busy
	}
	return n
}

// Errors is the number of failed requests of every kind.
func (rp *Report) Errors() int {
	n := 0
	for _, k := range rp.Kinds {
		n += k.Errors
	}
	return n
}

func (r *recorder) report(elapsed time.Duration) *Report {
	r.mu.Lock()
	defer r.mu.Unlock()
	rp := &Report{Elapsed: elapsed, Kinds: map[string]KindReport{}, PeakRSSMiB: peakRSSMiB()}
	for name, k := range r.kinds {
		kr := KindReport{OK: len(k.lat) + k.untimed, Errors: k.errors, Busy: k.busy, Retries: k.retries, FirstErrors: k.firstErrors}
		if len(k.lat) > 0 {
			lat := slices.Clone(k.lat)
			slices.Sort(lat)
			kr.P50, kr.P99, kr.Max = quantile(lat, 0.50), quantile(lat, 0.99), lat[len(lat)-1]
		}
		rp.Kinds[name] = kr
	}
	return rp
}

// quantile of sorted durations, nearest rank.
func quantile(sorted []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// resetPeakRSS returns freed memory to the system and starts the peak (VmHWM) again from the
// resident size now, so that a step's peak is its own; where the system does not allow it
// the peak stays the process's.
func resetPeakRSS() {
	debug.FreeOSMemory()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// peakRSSMiB reads VmHWM from /proc/self/status.
func peakRSSMiB() int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return kb / 1024
		}
	}
	return 0
}

// Write prints the report as a table.
func (rp *Report) Write(w io.Writer) {
	fmt.Fprintf(w, "%-9s %8s %7s %6s %7s %9s %9s %9s\n", "kind", "ok", "errors", "busy", "retries", "p50", "p99", "max")
	names := make([]string, 0, len(rp.Kinds))
	for n := range rp.Kinds {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		k := rp.Kinds[n]
		fmt.Fprintf(w, "%-9s %8d %7d %6d %7d %9s %9s %9s\n", n, k.OK, k.Errors, k.Busy, k.Retries, ms(k.P50), ms(k.P99), ms(k.Max))
		for _, e := range k.FirstErrors {
			fmt.Fprintf(w, "  error: %s\n", e)
		}
	}
	fmt.Fprintf(w, "load ran %s (register and login are the warm-up before it); errors %d, busy %d, peak RSS %d MiB\n",
		rp.Elapsed.Round(time.Millisecond), rp.Errors(), rp.Busy(), rp.PeakRSSMiB)
	rp.Use.Write(w)
}

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 1, 64) + " ms"
}
