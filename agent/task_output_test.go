package agent

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/api"
)

func TestTaskOutputLines(t *testing.T) {
	cp := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
	tests := map[string]struct {
		line string
		want taskOutput
		ok   bool
	}{
		"units with a unit":      {"KASHI_OUTPUT 1200 samples\n", taskOutput{Units: 1200, Unit: "samples"}, true},
		"unit of two words":      {"KASHI_OUTPUT 3 video clips", taskOutput{Units: 3, Unit: "video clips"}, true},
		"units without a unit":   {"KASHI_OUTPUT 7", taskOutput{Units: 7}, true},
		"checkpoint when seen":   {"KASHI_CHECKPOINT", taskOutput{Checkpoint: t0}, true},
		"checkpoint with a time": {"KASHI_CHECKPOINT 2026-03-01T08:00:00Z", taskOutput{Checkpoint: cp}, true},
		"checkpoint's place":     {"KASHI_CHECKPOINT /ckpt/step-400", taskOutput{Checkpoint: t0, CheckpointPlace: "/ckpt/step-400"}, true},
		"place and time": {"KASHI_CHECKPOINT s3://b/run/step-400 2026-03-01T08:00:00Z\n",
			taskOutput{Checkpoint: cp, CheckpointPlace: "s3://b/run/step-400"}, true},
		"place of two words":   {"KASHI_CHECKPOINT /ckpt/step 400", taskOutput{}, false},
		"place with a control": {"KASHI_CHECKPOINT /ckpt/\x01", taskOutput{}, false},
		"place too long":       {"KASHI_CHECKPOINT /" + strings.Repeat("c", 1024), taskOutput{}, false},
		"no number":            {"KASHI_OUTPUT lots", taskOutput{}, false},
		"negative":             {"KASHI_OUTPUT -1 samples", taskOutput{}, false},
		"beyond the bound":     {"KASHI_OUTPUT 1000000001 samples", taskOutput{}, false},
		"at the bound":         {"KASHI_OUTPUT 1000000000", taskOutput{Units: 1_000_000_000}, true},
		"empty":                {"KASHI_OUTPUT ", taskOutput{}, false},
		"other word":           {"KASHI_CHECKPOINTS", taskOutput{}, false},
		"plain log line":       {"epoch 3 loss 0.12", taskOutput{}, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var got taskOutput
			if ok := got.apply(tc.line, t0); ok != tc.ok || got != tc.want {
				t.Errorf("apply(%q) = %v, %+v; want %v, %+v", tc.line, ok, got, tc.ok, tc.want)
			}
		})
	}
}

func TestOutputTrackerReadsNewLinesOnly(t *testing.T) {
	dir := t.TempDir()
	tr := &outputTracker{logPath: filepath.Join(dir, "log"), filePath: filepath.Join(dir, "out")}
	write := func(name, s string) {
		f, _ := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		f.WriteString(s)
		f.Close()
	}
	if tr.poll(t0) {
		t.Error("poll() without files = changed")
	}
	write("log", "KASHI_OUTPUT 10 steps\nKASHI_OUTPUT 20 st")
	if !tr.poll(t0) || tr.out.Units != 10 {
		t.Errorf("after the first line: %+v, want 10 steps (the half line waits)", tr.out)
	}
	write("log", "eps\n")
	tr.poll(t0)
	write("out", "KASHI_OUTPUT 25 steps\n")
	if !tr.poll(t0) || tr.out != (taskOutput{Units: 25, Unit: "steps"}) {
		t.Errorf("after the output file: %+v, want 25 steps", tr.out)
	}
	if tr.poll(t0.Add(time.Minute)) {
		t.Error("poll() with nothing new = changed")
	}
}

func TestRunReportsOutputUnits(t *testing.T) {
	f := newFakeServer(t)
	work := t.TempDir()
	stateDir := t.TempDir()
	f.with(func() {
		f.assignments = []api.Assignment{{AllowRoot: true, TaskID: 12, Workdir: work, Command: []string{"/bin/sh", "-c",
			`echo KASHI_OUTPUT 5 images; echo KASHI_CHECKPOINT; echo "KASHI_OUTPUT 9 images" > "$KASHI_OUTPUT_FILE"; while [ ! -e finish ]; do sleep 0.01; done`}}}
	})
	r := SupervisedRunner{StateDir: stateDir, Supervisor: testSupervisor(), Grace: time.Second}
	a := newTestAgent(t, f, r)
	a.cfg.StateDir = stateDir
	a.cfg.Logger = slog.New(slog.DiscardHandler)
	stop := runAgent(t, a)
	f.waitFor(t, "a report of 9 images", func() bool {
		return len(f.statuses) > 0 && f.statuses[len(f.statuses)-1].OutputUnits == 9
	})
	os.WriteFile(filepath.Join(work, "finish"), nil, 0o644)
	f.waitFor(t, "exited report", func() bool {
		return len(f.statuses) > 0 && f.statuses[len(f.statuses)-1].State == api.TaskExited
	})
	stop()
	f.with(func() {
		want := statusCall{TaskID: 12, State: api.TaskExited, OutputUnits: 9, OutputUnit: "images", Checkpoint: true}
		if diff := cmp.Diff(want, f.statuses[len(f.statuses)-1]); diff != "" {
			t.Errorf("exit status (-want +got):\n%s", diff)
		}
	})
}

func TestOutputTrackerShipsTheTail(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	tr := &outputTracker{logPath: log, filePath: filepath.Join(dir, "out")}
	big := strings.Repeat("x", 1000) + "\n"
	os.WriteFile(log, []byte(strings.Repeat(big, 100)+"bad \xff byte\n"), 0o644)
	tr.poll(t0)
	piece, ok := tr.takeLog(4)
	if !ok || len(piece.Text) > api.MaxLogTailBytes || !strings.HasSuffix(piece.Text, "bad ? byte\n") {
		t.Fatalf("takeLog() = %d bytes ending %q, %v; want at most 64 KiB ending in the last line", len(piece.Text), piece.Text[len(piece.Text)-12:], ok)
	}
	if end := piece.Offset + int64(len(piece.Text)); end != int64(100*1001+len("bad \xff byte\n")) {
		t.Errorf("piece ends at byte %d, want the end of the file", end)
	}
	if !strings.HasPrefix(piece.Text, "xxx") || (piece.Offset)%1001 != 0 {
		t.Errorf("piece starts at byte %d, want a line start", piece.Offset)
	}
	if _, ok := tr.takeLog(4); ok {
		t.Error("a second takeLog() without new lines = ok")
	}
	f, _ := os.OpenFile(log, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString("next\n")
	f.Close()
	tr.poll(t0)
	if piece, _ := tr.takeLog(4); piece.Text != "next\n" || piece.Offset != int64(100*1001+len("bad \xff byte\n")) {
		t.Errorf("takeLog() = %+v, want only the new line at its offset", piece)
	}
}

func TestRunShipsTaskLogs(t *testing.T) {
	f := newFakeServer(t)
	stateDir, work := t.TempDir(), t.TempDir()
	stopTaskDir(t, stateDir, 14) // its supervisor may still write when the test ends
	f.with(func() {
		f.assignments = []api.Assignment{{AllowRoot: true, TaskID: 14, Workdir: work, Command: []string{"/bin/sh", "-c",
			`echo epoch 1; while [ ! -e finish ]; do sleep 0.01; done; echo done`}}}
	})
	a := newTestAgent(t, f, SupervisedRunner{StateDir: stateDir, Supervisor: testSupervisor(), Grace: time.Second})
	a.cfg.Logger = slog.New(slog.DiscardHandler)
	runAgent(t, a)
	f.waitFor(t, "the first line shipped", func() bool { return len(f.logs) == 1 })
	os.WriteFile(filepath.Join(work, "finish"), nil, 0o644)
	f.waitFor(t, "the last line shipped", func() bool { return len(f.logs) == 2 })
	f.with(func() {
		want := []api.TaskLog{{TaskID: 14, Text: "epoch 1\n"}, {TaskID: 14, Offset: 8, Text: "done\n"}}
		if diff := cmp.Diff(want, f.logs); diff != "" {
			t.Errorf("logs (-want +got):\n%s", diff)
		}
	})
}

// A task that prints and exits before the next sample tick still ships its last lines and
// reports its last output with the exit (the exit used to take only what a tick had read).
func TestRunShipsTheLastLinesOfAnInstantExit(t *testing.T) {
	f := newFakeServer(t)
	stateDir, work := t.TempDir(), t.TempDir()
	stopTaskDir(t, stateDir, 15) // its supervisor may still write when the test ends
	f.with(func() {
		f.assignments = []api.Assignment{{AllowRoot: true, TaskID: 15, Workdir: work, Command: []string{"/bin/sh", "-c",
			`echo hello; echo KASHI_OUTPUT 3 items; exit 3`}}}
	})
	a := newTestAgent(t, f, SupervisedRunner{StateDir: stateDir, Supervisor: testSupervisor(), Grace: time.Second})
	a.cfg.Logger = slog.New(slog.DiscardHandler)
	a.cfg.SampleInterval, a.cfg.PollInterval = time.Hour, time.Hour // no tick reads the log: only the exit can
	runAgent(t, a)
	f.waitFor(t, "the exit shipped with its log", func() bool {
		return len(f.statuses) > 0 && f.statuses[len(f.statuses)-1].State == api.TaskExited && len(f.logs) > 0
	})
	f.with(func() {
		if last := f.statuses[len(f.statuses)-1]; last.OutputUnits != 3 {
			t.Errorf("exit status = %+v, want 3 items", last)
		}
		if got := f.logs[0].Text; got != "hello\nKASHI_OUTPUT 3 items\n" {
			t.Errorf("shipped log = %q, want both lines", got)
		}
	})
}
