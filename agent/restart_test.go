package agent

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/api"
)

// startAgentProcess runs the test binary as a whole agent process on stateDir.
func startAgentProcess(t *testing.T, f *fakeServer, stateDir string, grace time.Duration) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "kashi-agent", f.URL, stateDir, grace.String())
	cmd.Stderr = t.Output()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd
}

// sigkill kills an agent process the hard way and reaps it.
func sigkill(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
}

// starts returns the lines of the file a test task appends to on each start.
func starts(t *testing.T, dir string) []string {
	t.Helper()
	b, _ := os.ReadFile(filepath.Join(dir, "starts"))
	return strings.Fields(string(b))
}

// stopTaskDir stops whatever still runs of a task's group when the test ends, and waits for
// its supervisor to finish.
func stopTaskDir(t *testing.T, stateDir string, id int64) {
	t.Cleanup(func() {
		var started startedRecord
		if readJSON(taskDir(stateDir, id), startedFile, &started) == nil && started.PID > 0 {
			killProcessGroup(started.PID)
		}
		waitUnlocked(taskDir(stateDir, id))
	})
}

// lastExited says whether the last status stored is an exit.
func (f *fakeServer) lastExited() bool {
	return len(f.statuses) > 0 && f.statuses[len(f.statuses)-1].State == api.TaskExited
}

// distinctStatuses is the statuses stored with repeats of one report (resent after a kill
// between its delivery and its removal from the spool) left out.
func (f *fakeServer) distinctStatuses() []statusCall {
	return slices.Compact(slices.Clone(f.statuses))
}

func TestRestartAdoptsRunningTask(t *testing.T) {
	f := newFakeServer(t)
	stateDir, work := t.TempDir(), t.TempDir()
	stopTaskDir(t, stateDir, 7)
	f.with(func() {
		f.assignments = []api.Assignment{{AllowRoot: true, TaskID: 7, GPUUUIDs: []string{"GPU-x"}, Workdir: work,
			Command: []string{"/bin/sh", "-c", "echo start >> starts; exec sleep 30"}}}
	})
	first := startAgentProcess(t, f, stateDir, time.Second)
	f.waitFor(t, "running report", func() bool { return len(f.statuses) == 1 })
	sigkill(t, first)

	startAgentProcess(t, f, stateDir, time.Second)
	f.waitFor(t, "the adopted task listed as running on polls", func() bool {
		return len(f.running) > 0 && cmp.Equal(f.running[len(f.running)-1], []int64{7}) && f.polls > 5
	})
	if got := starts(t, work); len(got) != 1 {
		t.Fatalf("the task started %d times, want once", len(got))
	}
	f.with(func() { f.assignments = nil })
	f.waitFor(t, "exited report", f.lastExited)
	want := []statusCall{{TaskID: 7, State: api.TaskRunning}, {TaskID: 7, State: api.TaskExited, ExitCode: 143}}
	f.with(func() {
		if diff := cmp.Diff(want, f.distinctStatuses()); diff != "" {
			t.Errorf("statuses (-want +got):\n%s", diff)
		}
	})
}

func TestRestartReportsTaskThatEndedMeanwhile(t *testing.T) {
	f := newFakeServer(t)
	stateDir, work := t.TempDir(), t.TempDir()
	f.with(func() {
		f.assignments = []api.Assignment{{AllowRoot: true, TaskID: 8, Workdir: work,
			Command: []string{"/bin/sh", "-c", "echo start >> starts; while [ ! -e finish ]; do sleep 0.02; done; exit 4"}}}
	})
	first := startAgentProcess(t, f, stateDir, time.Second)
	f.waitFor(t, "running report", func() bool { return len(f.statuses) == 1 })
	sigkill(t, first)
	os.WriteFile(filepath.Join(work, "finish"), nil, 0o644)
	waitFile(t, filepath.Join(taskDir(stateDir, 8), exitFile))

	startAgentProcess(t, f, stateDir, time.Second)
	f.waitFor(t, "exited report", f.lastExited)
	var polls int
	f.with(func() { polls = f.polls })
	f.waitFor(t, "more polls with the task still listed", func() bool { return f.polls > polls+5 })
	if got := starts(t, work); len(got) != 1 {
		t.Errorf("the task started %d times, want once", len(got))
	}
	f.with(func() {
		last := f.statuses[len(f.statuses)-1]
		if last.TaskID != 8 || last.ExitCode != 4 {
			t.Errorf("last status = %+v, want task 8 exited 4", last)
		}
	})
}

func TestRestartWhileStoppingKillsAfterGrace(t *testing.T) {
	f := newFakeServer(t)
	stateDir, work := t.TempDir(), t.TempDir()
	stopTaskDir(t, stateDir, 9)
	// The task records SIGTERM and ignores it; only the kill after the grace ends it.
	f.with(func() {
		f.assignments = []api.Assignment{{AllowRoot: true, TaskID: 9, Workdir: work, Command: []string{"/bin/sh", "-c",
			`trap "echo term >> signals" TERM; echo start >> starts; while :; do sleep 0.02; done`}}}
	})
	const grace = 500 * time.Millisecond
	first := startAgentProcess(t, f, stateDir, grace)
	f.waitFor(t, "running report", func() bool { return len(f.statuses) == 1 })
	f.with(func() { f.assignments[0].Stop = true })
	waitFile(t, filepath.Join(work, "signals"))
	sigkill(t, first) // in the middle of the grace

	waitFile(t, filepath.Join(taskDir(stateDir, 9), exitFile)) // the supervisor killed it without the agent
	startAgentProcess(t, f, stateDir, grace)
	f.waitFor(t, "exited report", f.lastExited)
	want := []statusCall{{TaskID: 9, State: api.TaskRunning}, {TaskID: 9, State: api.TaskExited, ExitCode: 137}}
	f.with(func() {
		if diff := cmp.Diff(want, f.distinctStatuses()); diff != "" {
			t.Errorf("statuses (-want +got):\n%s", diff)
		}
	})
	if got := starts(t, work); len(got) != 1 {
		t.Errorf("the task started %d times, want once", len(got))
	}
}

// TestRestartWhileStartingAdoptsTask: the agent is killed after it started a task but before
// the server heard that it runs (the task still "starting" there); the restarted agent adopts
// the task, reports it running, and never starts it again.
func TestRestartWhileStartingAdoptsTask(t *testing.T) {
	f := newFakeServer(t)
	stateDir, work := t.TempDir(), t.TempDir()
	stopTaskDir(t, stateDir, 10)
	f.with(func() {
		f.statusFail = failSamples(1000, 503) // the running report does not get through
		f.assignments = []api.Assignment{{AllowRoot: true, TaskID: 10, Workdir: work,
			Command: []string{"/bin/sh", "-c", "echo start >> starts; exec sleep 30"}}}
	})
	first := startAgentProcess(t, f, stateDir, time.Second)
	waitFile(t, filepath.Join(work, "starts"))
	sigkill(t, first)
	f.with(func() {
		if len(f.statuses) != 0 {
			t.Fatalf("statuses before the restart = %+v, want none delivered", f.statuses)
		}
		f.statusFail = nil
	})

	var polls int
	f.with(func() { polls = f.polls })
	startAgentProcess(t, f, stateDir, time.Second)
	f.waitFor(t, "running report and polls listing the task", func() bool {
		return len(f.statuses) > 0 && cmp.Equal(f.running[len(f.running)-1], []int64{10}) && f.polls > polls+5
	})
	if got := starts(t, work); len(got) != 1 {
		t.Fatalf("the task started %d times, want once", len(got))
	}
	f.with(func() { f.assignments = nil })
	f.waitFor(t, "exited report", f.lastExited)
	want := []statusCall{{TaskID: 10, State: api.TaskRunning}, {TaskID: 10, State: api.TaskExited, ExitCode: 143}}
	f.with(func() {
		if diff := cmp.Diff(want, f.distinctStatuses()); diff != "" {
			t.Errorf("statuses (-want +got):\n%s", diff)
		}
	})
}
