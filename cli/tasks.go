package cli

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"kashi/api"
)

func runTasks(ctx context.Context, e *Env, args []string) error {
	f := newFlagSet(e, "tasks")
	var (
		all                  bool
		user, project, state string
		limit                int
		out                  = output("table")
	)
	f.BoolVar(&all, "a", false, "all tasks you may see, not only yours")
	f.StringVar(&user, "u", "", "only this owner's tasks (default you)")
	f.StringVar(&project, "p", "", "only this project's tasks")
	f.StringVar(&state, "s", "", "only tasks in this state (queued, running, succeeded…)")
	f.IntVar(&limit, "n", 100, "look at the newest N tasks (1–1000)")
	f.Var(&out, "o", "output: table, wide or json")
	if err := f.parse(args, 0, 0); err != nil {
		return err
	}
	if limit < 1 || limit > 1000 {
		return exitf(ExitUsage, "tasks: -n must be between 1 and 1000")
	}
	c, err := f.conn.client(e)
	if err != nil {
		return err
	}
	if user == "" && !all {
		var who api.Me
		if err := c.get(ctx, "/api/v1/me", nil, &who); err != nil {
			return err
		}
		user = who.Name
	}
	q := url.Values{"limit": {strconv.Itoa(limit)}}
	if project != "" {
		q.Set("project", project)
	}
	if state != "" {
		q.Set("state", state)
	}
	var ts []api.Task
	if err := c.get(ctx, "/api/v1/tasks", q, &ts); err != nil {
		return err
	}
	mine := ts[:0]
	for _, t := range ts {
		if all || t.Owner == user {
			mine = append(mine, t)
		}
	}
	if out == "json" {
		return writeJSON(e.Stdout, mine)
	}
	return taskTable(e, mine, out == "wide", time.Now())
}

// taskTable prints tasks like squeue: one line each.
func taskTable(e *Env, ts []api.Task, wide bool, now time.Time) error {
	head := []string{"ID", "PROJECT", "NAME", "OWNER", "GPUS", "SPEC", "QUEUE", "STATE", "AGE", "REASON"}
	if wide {
		head = append(head, "PRIORITY", "SUBMITTED", "STARTED", "ENDED", "EXIT", "COMMAND")
	}
	tb := newTable(e.Stdout, head...)
	for _, t := range ts {
		row := []string{strconv.FormatInt(t.ID, 10), t.Project, orDash(t.Name), t.Owner, strconv.Itoa(t.GPUs),
			orDash(t.Spec), t.Queue, string(t.State), age(now, t.SubmittedAt), orDash(t.Reason)}
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
