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
// idle (held but unused) and stale, then per pool its free cards beside its interconnect and
// storage; -o wide lists every GPU like nvidia-smi.
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
	if err := countTable(e, []string{"NODE", "POOL", "SPEC"}, gs, func(g api.GPU) []string { return []string{g.Node, g.Pool, g.Spec} }); err != nil {
		return err
	}
	var queue api.Queue
	if err := c.get(ctx, "/api/v1/queue", nil, &queue); err != nil {
		return err
	}
	return attributesTable(e, queue.Capacity, pool, spec)
}

// attributesTable prints, per pool, the free cards of its spec and region beside what the
// pool states for work across cards and nodes and for storage ("-" for not stated); only
// pool and spec when set.
func attributesTable(e *Env, caps []api.Capacity, pool, spec string) error {
	var rows [][]string
	for _, c := range caps {
		for _, a := range c.Pools {
			if (pool != "" && a.Pool != pool) || (spec != "" && c.Spec != spec) {
				continue
			}
			rows = append(rows, []string{a.Pool, c.Spec, cmp.Or(c.Region, "-"), strconv.Itoa(c.Free), strconv.Itoa(c.LargestFree),
				intraText(a), interText(a), storageText(a)})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	fmt.Fprintln(e.Stdout)
	tb := newTable(e.Stdout, "POOL", "SPEC", "REGION", "FREE", "LARGEST", "IN-NODE", "BETWEEN-NODES", "STORAGE-READ")
	for _, r := range rows {
		tb.row(r...)
	}
	return tb.flush()
}

// linkNames are how the links read in a table.
var linkNames = map[string]string{"nvlink": "NVLink", "pcie": "PCIe", "roce": "RoCE", "infiniband": "InfiniBand", "ethernet": "Ethernet"}

// intraText is the link between a node's cards: "NVLink 600 GB/s", "PCIe", "-".
func intraText(a api.PoolAttributes) string {
	switch {
	case a.IntraNodeLink == "":
		return "-"
	case a.IntraNodeGBytesS > 0:
		return fmt.Sprintf("%s %d GB/s", linkNames[a.IntraNodeLink], a.IntraNodeGBytesS)
	}
	return linkNames[a.IntraNodeLink]
}

// interText is the network between nodes: "4x200 Gb/s RoCE", "none", "-".
func interText(a api.PoolAttributes) string {
	switch a.InterNodeLink {
	case "":
		return "-"
	case "none":
		return "none"
	}
	return fmt.Sprintf("%dx%d Gb/s %s", a.InterNodePorts, a.InterNodePortGbps, linkNames[a.InterNodeLink])
}

// storageText is the storage's read throughput: "local 3000, shared 2000 MB/s", "-".
func storageText(a api.PoolAttributes) string {
	var parts []string
	if a.LocalStorageMBps > 0 {
		parts = append(parts, fmt.Sprintf("local %d", a.LocalStorageMBps))
	}
	if a.SharedStorageMBps > 0 {
		parts = append(parts, fmt.Sprintf("shared %d", a.SharedStorageMBps))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, ", ") + " MB/s"
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
