package cli

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"kashi/api"
)

// runGPUs shows the fleet like sinfo: per spec, then per node, how many GPUs are free, busy,
// idle (held but unused) and stale; -o wide lists every GPU like nvidia-smi.
func runGPUs(ctx context.Context, e *Env, args []string) error {
	f := newFlagSet(e, "gpus")
	var pool, spec string
	out := output("table")
	f.StringVar(&pool, "pool", "", "only this pool")
	f.StringVar(&spec, "spec", "", "only this spec")
	f.Var(&out, "o", "output: table (per spec and node), wide (every GPU) or json")
	if err := f.parse(args, 0, 0); err != nil {
		return err
	}
	c, err := f.conn.client(e)
	if err != nil {
		return err
	}
	q := url.Values{}
	if pool != "" {
		q.Set("pool", pool)
	}
	if spec != "" {
		q.Set("spec", spec)
	}
	var gs []api.GPU
	if err := c.get(ctx, "/api/v1/gpus", q, &gs); err != nil {
		return err
	}
	switch out {
	case "json":
		return writeJSON(e.Stdout, gs)
	case "wide":
		tb := newTable(e.Stdout, "NODE", "IDX", "POOL", "SPEC", "STATE", "UTIL", "MEMORY", "TASK", "PROJECT")
		for _, g := range gs {
			taskCol, proj := "-", "-"
			if g.TaskID != nil {
				taskCol = strconv.FormatInt(*g.TaskID, 10)
			}
			if g.Project != nil {
				proj = *g.Project
			}
			tb.row(g.Node, strconv.Itoa(g.Index), g.Pool, g.Spec, string(g.State), fmt.Sprintf("%d%%", g.UtilPct),
				fmt.Sprintf("%d/%d MiB", g.MemoryUsedMiB, g.MemoryTotalMiB), taskCol, proj)
		}
		return tb.flush()
	}
	if err := countTable(e, []string{"SPEC"}, gs, func(g api.GPU) []string { return []string{g.Spec} }); err != nil {
		return err
	}
	fmt.Fprintln(e.Stdout)
	return countTable(e, []string{"NODE", "POOL", "SPEC"}, gs, func(g api.GPU) []string { return []string{g.Node, g.Pool, g.Spec} })
}

// counts are the GPUs of one group by state.
type counts struct{ total, free, busy, idle, stale int }

// countTable prints the GPUs grouped by the columns cols picks, with a count per state.
func countTable(e *Env, head []string, gs []api.GPU, cols func(api.GPU) []string) error {
	by := map[string]*counts{}
	for _, g := range gs {
		k := strings.Join(cols(g), "\x00")
		if by[k] == nil {
			by[k] = &counts{}
		}
		n := by[k]
		n.total++
		switch g.State {
		case api.GPUFree:
			n.free++
		case api.GPUBusy:
			n.busy++
		case api.GPUIdle:
			n.idle++
		default:
			n.stale++
		}
	}
	tb := newTable(e.Stdout, append(head, "TOTAL", "FREE", "BUSY", "IDLE", "STALE")...)
	keys := make([]string, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, cmp.Compare)
	for _, k := range keys {
		n := by[k]
		tb.row(append(strings.Split(k, "\x00"), strconv.Itoa(n.total), strconv.Itoa(n.free), strconv.Itoa(n.busy), strconv.Itoa(n.idle), strconv.Itoa(n.stale))...)
	}
	return tb.flush()
}
