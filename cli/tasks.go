package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"kashi/api"
)

func runTasks(ctx context.Context, e *Env, args []string) error {
	f := newFlagSet(e, "tasks")
	var (
		all              bool
		users, states    listFlag
		project, format  string
		limit            int
		asJSON, noHeader bool
		out              = output("table")
	)
	f.BoolVar(&all, "a", false, "all tasks you may see, not only yours")
	f.Var(&users, "u", "only these owners' tasks, comma-separated (default you)")
	f.Var(&users, "user", "same as -u")
	f.StringVar(&project, "p", "", "only this project's tasks")
	f.StringVar(&project, "A", "", "same as -p (Slurm's account)")
	f.Var(&states, "s", "only tasks in these states, comma-separated: Kashi's (queued, running…) or Slurm's (PD, R, CD…)")
	f.Var(&states, "t", "same as -s")
	f.Var(&states, "state", "same as -s")
	f.IntVar(&limit, "n", 100, "look at the newest N tasks (1–1000)")
	f.Var(&out, "o", "output: table, wide or json")
	f.BoolVar(&asJSON, "json", false, "same as -o json")
	f.BoolVar(&noHeader, "noheader", false, "no header line")
	f.StringVar(&format, "format", "", `squeue's field list, e.g. "%.8i %.10j %.8u %.2t %.10M %R"`)
	if err := f.parse(args, 0, 0); err != nil {
		return err
	}
	if limit < 1 || limit > 1000 {
		return exitf(ExitUsage, "tasks: -n must be between 1 and 1000")
	}
	var st []string
	if len(states) > 0 {
		var err error
		if st, err = parseStates(states.String()); err != nil {
			return exitf(ExitUsage, "tasks: -s: %v", err)
		}
	}
	var (
		cells []cell
		err   error
	)
	if format != "" {
		if cells, err = parseFormat(format); err != nil {
			return exitf(ExitUsage, "tasks: --format: %v", err)
		}
	}
	c, err := f.conn.client(e)
	if err != nil {
		return err
	}
	if len(users) == 0 && !all {
		var who api.Me
		if err := c.get(ctx, "/api/v1/me", nil, &who); err != nil {
			return err
		}
		users = listFlag{who.Name}
	}
	q := url.Values{"limit": {strconv.Itoa(limit)}}
	if project != "" {
		q.Set("project", project)
	}
	if len(states) > 0 {
		q.Set("state", strings.Join(st, ","))
	}
	if len(users) > 0 {
		q.Set("owner", users.String())
	}
	var ts []api.Task
	now, err := c.getNow(ctx, "/api/v1/tasks", q, &ts)
	if ae := (*APIError)(nil); errors.As(err, &ae) && ae.Status == http.StatusBadRequest {
		return exitf(ExitUsage, "tasks: %v", ae) // a filter the server refused: a state or owner it does not know
	} else if err != nil {
		return err
	}
	switch {
	case out == "json" || asJSON:
		return writeJSON(e.Stdout, ts)
	case cells != nil:
		writeFormat(e.Stdout, cells, ts, now, noHeader)
		return nil
	}
	return taskTable(e, ts, out == "wide", noHeader, now)
}

// taskTable prints tasks like squeue: one line each; AGE and TIME are reckoned from now, the
// server's clock.
func taskTable(e *Env, ts []api.Task, wide, noHeader bool, now time.Time) error {
	head := []string{"ID", "PROJECT", "NAME", "OWNER", "GPUS", "SPEC", "QUEUE", "STATE", "AGE", "TIME", "NODELIST", "REASON"}
	if wide {
		head = append(head, "PRIORITY", "SUBMITTED", "STARTED", "ENDED", "EXIT", "COMMAND")
	}
	tb := bareTable(e.Stdout)
	if !noHeader {
		tb.row(head...)
	}
	for _, t := range ts {
		row := []string{strconv.FormatInt(t.ID, 10), t.Project, orDash(t.Name), t.Owner, strconv.Itoa(t.GPUs),
			orDash(t.Spec), t.Queue, string(t.State), age(now, t.SubmittedAt), elapsed(now, t), nodeList(t), orDash(t.Reason)}
		if wide {
			exit := "-"
			if t.ExitCode != nil {
				exit = strconv.Itoa(*t.ExitCode)
			}
			row = append(row, t.Priority, stamp(&t.SubmittedAt), stamp(t.StartedAt), stamp(t.EndedAt), exit,
				orDash(strings.Join(t.Command, " ")))
		}
		tb.row(row...)
	}
	return tb.flush()
}

func runShow(ctx context.Context, e *Env, args []string) error {
	f := newFlagSet(e, "show")
	out := output("table")
	f.Var(&out, "o", "output: table or json")
	if err := f.parse(args, 1, 1); err != nil {
		return err
	}
	id, err := taskID(f.pos[0])
	if err != nil {
		return err
	}
	c, err := f.conn.client(e)
	if err != nil {
		return err
	}
	var t api.TaskDetail
	if err := c.get(ctx, "/api/v1/tasks/"+id, nil, &t); err != nil {
		return err
	}
	var place *api.QueueEntry
	if !t.State.Ended() && t.StartedAt == nil {
		var q api.Queue
		if err := c.get(ctx, "/api/v1/queue", nil, &q); err != nil {
			return err
		}
		for i := range q.Tasks {
			if q.Tasks[i].ID == t.ID {
				place = &q.Tasks[i]
			}
		}
	}
	if out == "json" {
		return writeJSON(e.Stdout, struct {
			api.TaskDetail
			Queue *api.QueueEntry `json:"queue,omitempty"`
		}{t, place})
	}
	w := e.Stdout
	fmt.Fprintf(w, "Task %d  %s\n", t.ID, orDash(t.Name))
	fmt.Fprintf(w, "  Project:   %s   Owner: %s\n", t.Project, t.Owner)
	fmt.Fprintf(w, "  Asks:      %d × %s, %s queue, %s priority, est %.1f card-hours, max %s\n", t.GPUs, orDash(t.Spec),
		t.Queue, t.Priority, t.EstGPUHours, time.Duration(t.MaxRuntimeS)*time.Second)
	fmt.Fprintf(w, "  Command:   %s\n", orDash(strings.Join(t.Command, " ")))
	fmt.Fprintf(w, "  State:     %s%s\n", t.State, suffix(t.Reason))
	if len(t.Nodes) > 0 {
		fmt.Fprintf(w, "  Nodes:     %s\n", nodeList(t.Task))
	}
	fmt.Fprintf(w, "  Submitted: %s   Started: %s   Ended: %s\n", stamp(&t.SubmittedAt), stamp(t.StartedAt), stamp(t.EndedAt))
	if t.ExitCode != nil {
		fmt.Fprintf(w, "  Exit code: %d\n", *t.ExitCode)
	} else if t.State.Ended() {
		fmt.Fprintln(w, "  Exit code: —") // it never ran, or never reported one
	}
	if t.OutputUnit != "" {
		fmt.Fprintf(w, "  Output:    %d %s\n", t.OutputUnits, t.OutputUnit)
	}
	if place != nil {
		fmt.Fprintf(w, "  Queue:     position %d in the %s lane; start ETA %s (p90 %s)\n", place.Position, place.Lane,
			stamp(place.ETAP50), stamp(place.ETAP90))
		fmt.Fprintf(w, "  Waits:     %s\n", orDash(place.ReasonText))
	}
	if len(t.Events) > 0 {
		fmt.Fprintln(w, "Events:")
		tb := newTable(w, "  AT", "FROM", "TO", "REASON")
		for _, ev := range t.Events {
			tb.row("  "+stamp(&ev.At), orDash(ev.From), ev.To, orDash(ev.Reason))
		}
		return tb.flush()
	}
	return nil
}

// taskID checks a task id argument.
func taskID(s string) (string, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err != nil || n <= 0 {
		return "", exitf(ExitUsage, "%q is not a task id (a positive integer)", s)
	}
	return s, nil
}
