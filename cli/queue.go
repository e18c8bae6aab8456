package cli

import (
	"context"
	"fmt"
	"strconv"

	"kashi/api"
)

func runQueue(ctx context.Context, e *Env, args []string) error {
	f := newFlagSet(e, "queue")
	var lane, spec string
	out := output("table")
	f.StringVar(&lane, "lane", "", "only this lane (short or long)")
	f.StringVar(&spec, "spec", "", "only tasks asking for this spec")
	f.Var(&out, "o", "output: table, wide or json")
	if err := f.parse(args, 0, 0); err != nil {
		return err
	}
	c, err := f.conn.client(e)
	if err != nil {
		return err
	}
	var q api.Queue
	if err := c.get(ctx, "/api/v1/queue", nil, &q); err != nil {
		return err
	}
	kept := q.Tasks[:0]
	for _, t := range q.Tasks {
		if (lane == "" || t.Lane == lane) && (spec == "" || t.Spec == spec) {
			kept = append(kept, t)
		}
	}
	q.Tasks = kept
	if out == "json" {
		return writeJSON(e.Stdout, q)
	}
	head := []string{"POS", "LANE", "ID", "PROJECT", "OWNER", "GPUS", "SPEC", "PRIO", "ETA", "ETA90", "REASON"}
	if out == "wide" {
		head = append(head, "NAME", "WHY")
	}
	tb := newTable(e.Stdout, head...)
	for _, t := range q.Tasks {
		row := []string{strconv.Itoa(t.Position), t.Lane, strconv.FormatInt(t.ID, 10), t.Project, t.Owner,
			strconv.Itoa(t.GPUs), orDash(t.Spec), t.Priority, stamp(t.ETAP50), stamp(t.ETAP90), orDash(string(t.Reason))}
		if out == "wide" {
			row = append(row, orDash(t.Name), orDash(t.ReasonText))
		}
		tb.row(row...)
	}
	if err := tb.flush(); err != nil {
		return err
	}
	fmt.Fprintln(e.Stdout)
	tb = newTable(e.Stdout, "SPEC", "TOTAL", "HELD", "FREE", "BOOKED", "LARGEST_FREE")
	for _, cp := range q.Capacity {
		tb.row(cp.Spec, strconv.Itoa(cp.Total), strconv.Itoa(cp.Held), strconv.Itoa(cp.Free), strconv.Itoa(cp.Booked),
			strconv.Itoa(cp.LargestFree))
	}
	return tb.flush()
}
