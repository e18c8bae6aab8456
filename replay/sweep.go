package replay

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"kashi/billing"
)

// Param is one swept setting and its candidate values, as written.
type Param struct {
	Name   string
	Values []string
}

// Choice is one value of a swept parameter.
type Choice struct{ Name, Value string }

// Setting is one value per swept parameter.
type Setting []Choice

// String writes the setting as name=value pairs separated by spaces.
func (s Setting) String() string {
	parts := make([]string, len(s))
	for i, kv := range s {
		parts[i] = kv.Name + "=" + kv.Value
	}
	return strings.Join(parts, " ")
}

// sweepKeys are the parameters a sweep may vary, with what each sets.
var sweepKeys = map[string]string{
	"policy":         "the policy: kashi or fifo",
	"estimates":      "what tasks declare: exact, none or declared",
	"nodes":          "the size of every fixed pool",
	"scale_up_mem":   "memory_high_pct of every elastic pool, as a fraction (0.8 = 80 %)",
	"scale_down_mem": "memory_low_pct of every elastic pool, as a fraction",
	"cooldown":       "cooldown_up and cooldown_down of every elastic pool (a duration)",
	"cooldown_up":    "cooldown_up of every elastic pool",
	"cooldown_down":  "cooldown_down of every elastic pool",
	"scale_up_delay": "scale_up_delay of every elastic pool",
	"unneeded_time":  "unneeded_time of every elastic pool",
	"step":           "step of every elastic pool",
	"min_nodes":      "min_nodes of every elastic pool",
	"max_nodes":      "max_nodes of every elastic pool",
	"reserved_min":   "reserved_min of every elastic pool",
	"boot_time":      "boot_time of every pool",
}

// maxCombinations bounds a sweep.
const maxCombinations = 1000

// ParseSweep reads 'name=v1,v2;name=v3', e.g. 'scale_up_mem=0.7,0.8,0.9;cooldown=5m,10m'.
func ParseSweep(spec string) ([]Param, error) {
	var out []Param
	n := 1
	for part := range strings.SplitSeq(spec, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, vals, ok := strings.Cut(part, "=")
		name = strings.TrimSpace(name)
		if !ok {
			return nil, fmt.Errorf("replay: sweep: %q is not name=v1,v2,…", part)
		}
		if _, known := sweepKeys[name]; !known {
			return nil, fmt.Errorf("replay: sweep: unknown setting %q (known: %s)", name, strings.Join(sortedKeys(), ", "))
		}
		if slices.ContainsFunc(out, func(p Param) bool { return p.Name == name }) {
			return nil, fmt.Errorf("replay: sweep: %s given twice", name)
		}
		p := Param{Name: name}
		for v := range strings.SplitSeq(vals, ",") {
			if v = strings.TrimSpace(v); v != "" {
				p.Values = append(p.Values, v)
			}
		}
		if len(p.Values) == 0 {
			return nil, fmt.Errorf("replay: sweep: %s has no values", name)
		}
		n *= len(p.Values)
		if n > maxCombinations {
			return nil, fmt.Errorf("replay: sweep: more than %d combinations", maxCombinations)
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("replay: sweep: no settings in %q", spec)
	}
	return out, nil
}

func sortedKeys() []string {
	keys := make([]string, 0, len(sweepKeys))
	for k := range sweepKeys {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Combinations lists every setting, the last parameter varying fastest.
func Combinations(ps []Param) []Setting {
	out := []Setting{{}}
	for _, p := range ps {
		next := make([]Setting, 0, len(out)*len(p.Values))
		for _, s := range out {
			for _, v := range p.Values {
				next = append(next, append(slices.Clone(s), Choice{p.Name, v}))
			}
		}
		out = next
	}
	return out
}

// Apply returns base with the setting applied; base is not changed.
func (s Setting) Apply(base Options) (Options, error) {
	opt := base
	opt.Fleet.Pools = slices.Clone(base.Fleet.Pools)
	for i := range opt.Fleet.Pools {
		if sc := opt.Fleet.Pools[i].Scale; sc != nil {
			c := *sc
			opt.Fleet.Pools[i].Scale = &c
		}
	}
	for _, kv := range s {
		if err := opt.set(kv.Name, kv.Value); err != nil {
			return Options{}, fmt.Errorf("replay: sweep: %s=%s: %w", kv.Name, kv.Value, err)
		}
	}
	return opt, opt.Fleet.Validate()
}

// set applies one swept value.
func (opt *Options) set(name, v string) error {
	switch name {
	case "policy":
		opt.Policy = v
		return nil
	case "estimates":
		opt.Estimates = v
		return nil
	}
	pools := opt.Fleet.Pools
	var elastic []*ScaleConfig
	for i := range pools {
		if pools[i].Scale != nil {
			elastic = append(elastic, pools[i].Scale)
		}
	}
	num := func() (int, error) {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("not a whole number ≥ 0")
		}
		return n, nil
	}
	dur := func() (time.Duration, error) {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return 0, fmt.Errorf("not a duration ≥ 0 (like 5m)")
		}
		return d, nil
	}
	frac := func() (float64, error) {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f > 0 && f <= 1) {
			return 0, fmt.Errorf("not a fraction in (0, 1]")
		}
		return f * 100, nil
	}
	switch name {
	case "nodes", "boot_time":
		if name == "boot_time" {
			d, err := dur()
			for i := range pools {
				pools[i].BootTime = d
			}
			return err
		}
		n, err := num()
		fixed := 0
		for i := range pools {
			if pools[i].Scale == nil {
				pools[i].Nodes = n
				fixed++
			}
		}
		if fixed == 0 {
			return fmt.Errorf("no fixed pool")
		}
		return err
	}
	if len(elastic) == 0 {
		return fmt.Errorf("needs an elastic pool (a scale section in --config)")
	}
	var err error
	for _, sc := range elastic {
		switch name {
		case "scale_up_mem":
			sc.MemoryHighPct, err = frac()
		case "scale_down_mem":
			sc.MemoryLowPct, err = frac()
		case "cooldown":
			sc.CooldownUp, err = dur()
			sc.CooldownDown = sc.CooldownUp
		case "cooldown_up":
			sc.CooldownUp, err = dur()
		case "cooldown_down":
			sc.CooldownDown, err = dur()
		case "scale_up_delay":
			sc.ScaleUpDelay, err = dur()
		case "unneeded_time":
			sc.UnneededTime, err = dur()
		case "step":
			sc.Step, err = num()
		case "min_nodes":
			sc.MinNodes, err = num()
		case "max_nodes":
			sc.MaxNodes, err = num()
		case "reserved_min":
			sc.ReservedMin, err = num()
		}
	}
	return err
}

// SweepRow is one combination's outcome.
type SweepRow struct {
	Setting string  `json:"setting"`
	Result  *Result `json:"result"`
}

// Sweep replays tr under every setting, up to workers at once (zero means one per core);
// the rows are in the order of the settings. progress, when not nil, is called with the
// number of replays finished after each one (from the workers: it must be safe for that).
func Sweep(tr *Trace, base Options, settings []Setting, workers int, progress func(done int)) ([]SweepRow, error) {
	opts := make([]Options, len(settings))
	for i, s := range settings {
		o, err := s.Apply(base)
		if err != nil {
			return nil, err
		}
		opts[i] = o
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	rows := make([]SweepRow, len(settings))
	errs := make([]error, len(settings))
	next := make(chan int)
	var (
		wg   sync.WaitGroup
		done atomic.Int64
	)
	for range min(workers, len(settings)) {
		wg.Go(func() {
			for i := range next {
				rows[i].Setting = settings[i].String()
				rows[i].Result, errs[i] = Run(tr, opts[i])
				if n := done.Add(1); progress != nil {
					progress(int(n))
				}
			}
		})
	}
	for i := range settings {
		next <- i
	}
	close(next)
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("%s: %w", settings[i], err)
		}
	}
	return rows, nil
}

// WriteTable prints the rows as an aligned table: cost in yuan, idle card-hours, mean,
// p95 and max wait in seconds, makespan in seconds, and the score of the estimates of start
// (ETAScore): the tasks that waited, the share whose first p50 was within ±25 % of their
// wait, the share started by their first p90, and the median ratio of estimated to actual
// wait.
func WriteTable(w io.Writer, rows []SweepRow) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "setting\tcost_yuan\tidle_card_h\tmean_wait_s\tp95_wait_s\tmax_wait_s\tmakespan_s\twaited\tp50_within_25pct\tby_p90\teta_ratio\t")
	for _, r := range rows {
		res := r.Result
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.1f\t%.1f\t%d\t%d\t%d\t%.0f%%\t%.0f%%\t%.2f\t\n", r.Setting, billing.FormatFen(res.Cost.TotalFen),
			billing.FormatHours(int64(res.IdleGPUHours)), res.WaitS.Mean, res.WaitS.P95, res.WaitS.Max, res.MakespanS,
			res.ETA.Tasks, 100*res.ETA.P50Within, 100*res.ETA.ByP90, res.ETA.MedianRatio)
	}
	return tw.Flush()
}
