package cli_test

import (
	"errors"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"kashi/cli"
	"kashi/models"
	"kashi/web/webtest"
)

// TestTrialCommand: `kashi trial start --from` starts a trial of a member's task and prints
// its id; `trial list -p` lists it; once its runs have ended with output, `trial show` prints
// each spec and size with its throughput and scaling and the proposal, and `trial run-full`
// submits the proposal once (a second is refused, exit 1). Another project's member gets
// "not found" (exit 5); a start without a task is bad usage (exit 2), nothing sent.
func TestTrialCommand(t *testing.T) {
	s := webtest.NewServer(t)
	s.Projects("vision", "nlp")
	alice, bob := s.Member("alice", "vision"), s.Member("bob", "nlp")
	nodes := map[string]webtest.Registered{
		"a": s.Register(webtest.Node("a").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 4)),
		"r": s.Register(webtest.Node("r").InPool("4090").Cards("NVIDIA GeForce RTX 4090", 24564, 4)),
	}
	for spec, rate := range map[string]int64{"A100-80G": 1500, "RTX4090-24G": 420} {
		if err := s.Store.SetPrice(t.Context(), models.Price{Spec: spec, FromMonth: "2026-01", RateFen: rate}, webtest.T0.Add(-6*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	base := s.Create(webtest.Task("pretrain").Spec("A100-80G").Ready(), webtest.T0.Add(-5*time.Hour))
	srv := httptest.NewServer(s.E)
	defer srv.Close()
	exit := func(err error) int {
		var ee *cli.ExitError
		if errors.As(err, &ee) {
			return ee.Code
		}
		return 0
	}

	if out, err := kashi(t, srv, alice, nil, "trial", "start", "--specs", "A100-80G"); exit(err) != cli.ExitUsage {
		t.Errorf("trial start without a task = %v, %q; want exit %d", err, out, cli.ExitUsage)
	}
	out, err := kashi(t, srv, alice, nil, "trial", "start", "--from", strconv.FormatInt(base.ID, 10), "--specs", "A100-80G, RTX4090-24G",
		"--sizes", "1,2", "--bound", "20m", "--full-gpus", "4")
	if err != nil {
		t.Fatalf("trial start: %v\n%s", err, out)
	}
	id := strings.TrimSpace(out)
	trialID, _ := strconv.ParseInt(id, 10, 64)
	if out, err := kashi(t, srv, alice, nil, "trial", "list", "-p", "vision"); err != nil || !strings.Contains(out, "pretrain") ||
		!strings.HasPrefix(strings.Split(out, "\n")[1], id+" ") {
		t.Errorf("trial list = %v\n%s\nwant trial %s of pretrain", err, out, id)
	}
	if out, err := kashi(t, srv, bob, nil, "trial", "list", "-p", "vision"); exit(err) != cli.ExitNotFound {
		t.Errorf("another project's trial list = %v, %q; want exit %d", err, out, cli.ExitNotFound)
	}
	if out, err := kashi(t, srv, alice, nil, "trial", "show", id); err != nil || !strings.Contains(out, "the proposal comes once every run has ended") {
		t.Errorf("trial show while it runs = %v\n%s", err, out)
	}

	runs, err := s.Store.TrialRuns(t.Context(), trialID)
	if err != nil || len(runs) != 4 {
		t.Fatalf("TrialRuns = %d, %v", len(runs), err)
	}
	start := webtest.T0.Add(-2 * time.Hour)
	used := map[string]int{}
	for _, r := range runs {
		node := map[string]string{"A100-80G": "a", "RTX4090-24G": "r"}[r.Spec]
		var uuids []string
		for range r.GPUs {
			uuids = append(uuids, webtest.UUIDOf(node, used[node]))
			used[node]++
		}
		s.Place(r.Task, start, uuids...)
		perS := map[string]float64{"A100-80G": 400, "RTX4090-24G": 180}[r.Spec] * float64(r.GPUs) * map[int]float64{1: 1, 2: 0.9}[r.GPUs]
		end := start.Add(20 * time.Minute)
		rep := models.TaskReport{State: models.ReportExited, TS: end, ExitCode: 143, OutputUnits: int64(perS * 1200), OutputUnit: "samples"}
		if err := s.Store.ReportTaskStatus(t.Context(), nodes[node].ID, r.ID, rep, end); err != nil {
			t.Fatal(err)
		}
	}
	out, err = kashi(t, srv, alice, nil, "trial", "show", id)
	if err != nil {
		t.Fatalf("trial show: %v\n%s", err, out)
	}
	for _, w := range []string{"1440000 samples", "90%", "proposal: 4 × RTX4090-24G", "per million units"} {
		if !strings.Contains(out, w) {
			t.Errorf("trial show = \n%s\nwant it to say %q", out, w)
		}
	}
	if out, err := kashi(t, srv, bob, nil, "trial", "show", id); exit(err) != cli.ExitNotFound {
		t.Errorf("another project's trial show = %v, %q; want exit %d", err, out, cli.ExitNotFound)
	}
	out, err = kashi(t, srv, alice, nil, "trial", "run-full", id)
	if err != nil {
		t.Fatalf("trial run-full: %v\n%s", err, out)
	}
	full, _ := strconv.ParseInt(strings.TrimSpace(out), 10, 64)
	task, err := s.Store.TaskByID(t.Context(), full)
	if err != nil || task.Spec != "RTX4090-24G" || task.GPUs != 4 || task.Owner != "alice" {
		t.Errorf("the full run = %+v, %v; want alice's 4 × RTX4090-24G", task, err)
	}
	if out, err := kashi(t, srv, alice, nil, "trial", "run-full", id); exit(err) != cli.ExitFailed {
		t.Errorf("a second run-full = %v, %q; want exit %d", err, out, cli.ExitFailed)
	}
}
