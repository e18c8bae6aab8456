package agent

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"kashi/api"
)

// writeTask lays out a task folder as an agent killed at some point of a start leaves it.
func writeTask(t *testing.T, stateDir string, id int64, files ...string) string {
	t.Helper()
	dir := taskDir(stateDir, id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	spec := taskSpec{Assignment: api.Assignment{AllowRoot: true, TaskID: id, GPUUUIDs: []string{"GPU-a"}, Command: []string{"/bin/true"}}}
	for _, name := range files {
		var v any
		switch name {
		case specFile:
			v = spec
		case exitFile:
			v = exitRecord{ExitCode: 2, EndedAt: t0}
		case reportedFile:
			v = struct{}{}
		}
		if err := writeJSON(dir, name, v); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestAdoptAfterKillDuringStart(t *testing.T) {
	t.Run("killed before the supervisor ran: started once, now", func(t *testing.T) {
		stateDir := t.TempDir()
		writeTask(t, stateDir, 1, specFile)
		r := SupervisedRunner{StateDir: stateDir, Supervisor: testSupervisor(), Grace: time.Second}
		if got, err := r.Adopt(); err != nil || len(got) != 0 {
			t.Fatalf("Adopt() = %+v, %v, want nothing", got, err)
		}
		p, err := r.Start(context.Background(), api.Assignment{AllowRoot: true, TaskID: 1, Command: []string{"/bin/true"}})
		if err != nil {
			t.Fatalf("Start() after Adopt = %v, want the task to start", err)
		}
		if code, err := p.Wait(); code != 0 || err != nil {
			t.Errorf("Wait() = %d, %v", code, err)
		}
	})
	t.Run("killed while the supervisor starts the command: adopted, not started", func(t *testing.T) {
		stateDir := t.TempDir()
		dir := writeTask(t, stateDir, 2, specFile)
		lock, held, err := tryLock(dir) // stands for the supervisor, still starting
		if err != nil || held {
			t.Fatal(err)
		}
		r := SupervisedRunner{StateDir: stateDir, Supervisor: testSupervisor(), Grace: time.Second}
		got, err := r.Adopt()
		if err != nil || len(got) != 1 || got[0].TaskID != 2 || got[0].Reported {
			t.Fatalf("Adopt() = %+v, %v, want task 2 running", got, err)
		}
		if _, err := r.Start(context.Background(), api.Assignment{AllowRoot: true, TaskID: 2, Command: []string{"/bin/true"}}); err == nil {
			t.Error("Start() of the adopted task succeeded, want ErrAlreadyStarted")
		}
		lock.Close() // the supervisor dies without recording an exit
		code, err := got[0].Proc.Wait()
		if code != -1 || err == nil || !strings.Contains(err.Error(), "without recording an exit") {
			t.Errorf("Wait() = %d, %v, want -1 and the lost supervisor", code, err)
		}
	})
	t.Run("ended while the agent was away: exit reported", func(t *testing.T) {
		stateDir := t.TempDir()
		writeTask(t, stateDir, 3, specFile, startedFile, exitFile)
		got, err := SupervisedRunner{StateDir: stateDir}.Adopt()
		if err != nil || len(got) != 1 {
			t.Fatalf("Adopt() = %+v, %v, want task 3", got, err)
		}
		if code, err := got[0].Proc.Wait(); code != 2 || err != nil {
			t.Errorf("Wait() = %d, %v, want 2, nil", code, err)
		}
	})
	t.Run("reported before: known, never started again", func(t *testing.T) {
		stateDir := t.TempDir()
		writeTask(t, stateDir, 4, specFile, startedFile, exitFile, reportedFile)
		got, err := SupervisedRunner{StateDir: stateDir}.Adopt()
		if err != nil || len(got) != 1 || !got[0].Reported || got[0].Proc != nil {
			t.Fatalf("Adopt() = %+v, %v, want task 4 reported", got, err)
		}
	})
}

func TestReportedPrunesOldFolders(t *testing.T) {
	stateDir := t.TempDir()
	old := writeTask(t, stateDir, 1, specFile, exitFile, reportedFile)
	writeTask(t, stateDir, 2, specFile, exitFile)
	past := time.Now().Add(-keepReported - time.Hour)
	os.Chtimes(old+"/"+reportedFile, past, past)
	if err := (SupervisedRunner{StateDir: stateDir}).Reported(2, time.Now()); err != nil {
		t.Fatal(err)
	}
	if exists(old, specFile) {
		t.Error("the folder reported long ago is still there")
	}
	if !exists(taskDir(stateDir, 2), reportedFile) {
		t.Error("task 2 is not marked reported")
	}
}
