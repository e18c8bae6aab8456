package cli

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"kashi/api"
)

// trialVerbs are the subcommands of `kashi trial`.
const trialVerbs = "list, show, start or run-full"

// runTrial runs `kashi trial list|show|start|run-full`: trials (小规模试跑) over
// /api/v1/trials.
func runTrial(ctx context.Context, e *Env, args []string) error {
	if len(args) == 0 {
		return exitf(ExitUsage, "trial: give %s", trialVerbs)
	}
	switch args[0] {
	case "list":
		return trialList(ctx, e, args[1:])
	case "show":
		return trialShow(ctx, e, args[1:])
	case "start":
		return trialStart(ctx, e, args[1:])
	case "run-full":
		return trialRunFull(ctx, e, args[1:])
	}
	return exitf(ExitUsage, "trial: %q is not one of %s", args[0], trialVerbs)
}

// trialList prints a project's (or every visible project's) latest trials.
func trialList(ctx context.Context, e *Env, args []string) error {
	f := newFlagSet(e, "trial")
	var project string
	out := output("table")
	f.StringVar(&project, "p", "", "only this project's trials")
	f.Var(&out, "o", "output: table or json")
	if err := f.parse(args, 0, 0); err != nil {
		return err
	}
	c, err := f.conn.client(e)
	if err != nil {
		return err
	}
	q := url.Values{}
	if project != "" {
		q.Set("project", project)
	}
	var l api.TrialList
	if err := c.get(ctx, "/api/v1/trials", q, &l); err != nil {
		return err
	}
	if out == "json" {
		return writeJSON(e.Stdout, l)
	}
	tb := newTable(e.Stdout, "ID", "PROJECT", "OWNER", "NAME", "SPECS", "SIZES", "DONE", "PROPOSAL", "FULL_TASK")
	for _, t := range l.Trials {
		prop := "-"
		if p := t.Proposal; p != nil {
			prop = fmt.Sprintf("%d × %s", p.GPUs, p.Spec)
		}
		full := "-"
		if t.FullTaskID != nil {
			full = strconv.FormatInt(*t.FullTaskID, 10)
		}
		tb.row(strconv.FormatInt(t.ID, 10), t.Project, t.Owner, t.Name, strings.Join(t.Specs, ","), ints(t.Sizes),
			strconv.FormatBool(t.Done), prop, full)
	}
	return tb.flush()
}

// trialShow prints one trial: each spec and size with its figures, and its proposal.
func trialShow(ctx context.Context, e *Env, args []string) error {
	f := newFlagSet(e, "trial")
	out := output("table")
	f.Var(&out, "o", "output: table or json")
	if err := f.parse(args, 1, 1); err != nil {
		return err
	}
	id, err := trialID(f.pos[0])
	if err != nil {
		return err
	}
	c, err := f.conn.client(e)
	if err != nil {
		return err
	}
	var t api.Trial
	if err := c.get(ctx, "/api/v1/trials/"+id, nil, &t); err != nil {
		return err
	}
	if out == "json" {
		return writeJSON(e.Stdout, t)
	}
	return printTrial(e, t)
}

// printTrial writes trial t as show prints it.
func printTrial(e *Env, t api.Trial) error {
	fmt.Fprintf(e.Stdout, "trial %d: %s (project %s, by %s), each run at most %s\n\n", t.ID, t.Name, t.Project, t.Owner,
		time.Duration(t.BoundS)*time.Second)
	tb := newTable(e.Stdout, "TASK", "SPEC", "GPUS", "STATE", "RUNTIME", "UNITS/H", "SCALING", "COST", "PER_M_UNITS", "PEAK_MEM_MIB", "BUSY")
	for _, r := range t.Runs {
		eff, perM, busy := "-", "-", "-"
		if r.EfficiencyPct > 0 {
			eff = strconv.Itoa(r.EfficiencyPct) + "%"
		}
		if r.CostPerMFen != nil {
			perM = yuan(*r.CostPerMFen)
		}
		if r.Busy != nil {
			busy = strconv.FormatBool(*r.Busy)
		}
		tb.row(strconv.FormatInt(r.TaskID, 10), r.Spec, strconv.Itoa(r.GPUs), string(r.State),
			(time.Duration(r.RuntimeS) * time.Second).String(), strconv.FormatInt(r.UnitsPerHour, 10)+" "+orDash(r.OutputUnit),
			eff, yuan(r.CostFen), perM, strconv.FormatInt(r.PeakMemMiB, 10), busy)
	}
	if err := tb.flush(); err != nil {
		return err
	}
	switch p := t.Proposal; {
	case p != nil:
		proj := ""
		if p.Projected {
			proj = " (projected)"
		}
		fmt.Fprintf(e.Stdout, "\nproposal: %d × %s, %d units/h%s", p.GPUs, p.Spec, p.UnitsPerHour, proj)
		if p.CostPerMFen != nil {
			fmt.Fprintf(e.Stdout, ", %s per million units", yuan(*p.CostPerMFen))
		}
		if p.CardS > 0 {
			fmt.Fprintf(e.Stdout, "; the full run: %.1f card-hours, %s", float64(p.CardS)/3600, yuan(p.CostFen))
		}
		fmt.Fprintln(e.Stdout)
	case t.Done:
		fmt.Fprintln(e.Stdout, "\nno proposal: no run reported output (KASHI_OUTPUT)")
	default:
		fmt.Fprintln(e.Stdout, "\nthe proposal comes once every run has ended")
	}
	if t.FullTaskID != nil {
		fmt.Fprintf(e.Stdout, "full run: task %d\n", *t.FullTaskID)
	}
	return nil
}

// trialStart starts a trial of a task (--from) or of a task file (-f), and prints its id.
func trialStart(ctx context.Context, e *Env, args []string) error {
	f := newFlagSet(e, "trial")
	var (
		req          api.TrialRequest
		file, specs  string
		sizes, bound string
	)
	out := output("table")
	f.Int64Var(&req.FromTask, "from", 0, "try this task (its command, environment, image and data)")
	f.StringVar(&file, "f", "", "try the task in this YAML or JSON file (the API's fields; - for stdin)")
	f.StringVar(&specs, "specs", "", "the specs to try, comma-separated (1 to 4)")
	f.StringVar(&sizes, "sizes", "1,2", "the cards of each run, comma-separated (1 to 16 each)")
	f.StringVar(&bound, "bound", "20m", "how long each run may take (5m to 4h)")
	f.Int64Var(&req.WorkUnits, "work-units", 0, "the full run's output, in the unit the task reports")
	f.IntVar(&req.FullGPUs, "full-gpus", 0, "the cards of the full run")
	f.Var(&out, "o", "output: table (the id) or json")
	if err := f.parse(args, 0, 0); err != nil {
		return err
	}
	if (req.FromTask == 0) == (file == "") {
		return exitf(ExitUsage, "trial start: give --from TASK or -f FILE")
	}
	if file != "" {
		req.Task = &api.TaskRequest{}
		if err := readTaskFile(e, file, req.Task); err != nil {
			return err
		}
	}
	for _, s := range strings.Split(specs, ",") {
		if s = strings.TrimSpace(s); s != "" {
			req.Specs = append(req.Specs, s)
		}
	}
	for _, s := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return exitf(ExitUsage, "trial start: --sizes: %q is not a whole number of cards", s)
		}
		req.Sizes = append(req.Sizes, n)
	}
	d, err := time.ParseDuration(bound)
	if err != nil {
		return exitf(ExitUsage, "trial start: --bound: %v", err)
	}
	req.BoundS = int64(d / time.Second)
	c, err := f.conn.client(e)
	if err != nil {
		return err
	}
	var t api.Trial
	if err := c.call(ctx, http.MethodPost, "/api/v1/trials", nil, nil, req, &t); err != nil {
		return err
	}
	if out == "json" {
		return writeJSON(e.Stdout, t)
	}
	fmt.Fprintln(e.Stdout, t.ID)
	return nil
}

// trialRunFull submits a trial's full run (its proposal, or --spec and --gpus) and prints
// the task's id.
func trialRunFull(ctx context.Context, e *Env, args []string) error {
	f := newFlagSet(e, "trial")
	var req api.TrialFullRequest
	out := output("table")
	f.StringVar(&req.Spec, "spec", "", "run on this spec instead of the proposal's")
	f.IntVar(&req.GPUs, "gpus", 0, "run on this many cards instead of the proposal's")
	f.Var(&out, "o", "output: table (the task's id) or json")
	if err := f.parse(args, 1, 1); err != nil {
		return err
	}
	id, err := trialID(f.pos[0])
	if err != nil {
		return err
	}
	c, err := f.conn.client(e)
	if err != nil {
		return err
	}
	var t api.Task
	if err := c.call(ctx, http.MethodPost, "/api/v1/trials/"+id+"/full", nil, nil, req, &t); err != nil {
		return err
	}
	if out == "json" {
		return writeJSON(e.Stdout, t)
	}
	fmt.Fprintln(e.Stdout, t.ID)
	return nil
}

// trialID checks a trial id argument.
func trialID(s string) (string, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err != nil || n <= 0 {
		return "", exitf(ExitUsage, "trial: %q is not a trial id", s)
	}
	return s, nil
}

// ints joins ns with commas.
func ints(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// yuan formats fen as yuan with two decimals, "¥12.34", in exact integers.
func yuan(fen int64) string {
	sign := ""
	if fen < 0 {
		sign, fen = "-", -fen
	}
	return fmt.Sprintf("%s¥%d.%02d", sign, fen/100, fen%100)
}
