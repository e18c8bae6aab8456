package simgpu

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/gpus"
	"github.com/google/go-cmp/cmp"

	"kashi/agent"
	"kashi/api"
)

// waitExit returns the process's exit code, or false if it has not exited within d. Only a
// check that a process has not exited yet uses it: one that waits for an exit waits for it,
// however long a busy machine takes.
func waitExit(p agent.Process, d time.Duration) (int, bool) {
	done := make(chan int, 1)
	go func() {
		code, _ := p.Wait()
		done <- code
	}()
	select {
	case code := <-done:
		return code, true
	case <-time.After(d):
		return 0, false
	}
}

// processes returns the number of processes each GPU shows.
func processes(t *testing.T, b *Backend, now time.Time) []int {
	var n []int
	for _, s := range read(t, b, now) {
		n = append(n, len(s.Processes))
	}
	return n
}

func TestRunnerExitsAfterVirtualDuration(t *testing.T) {
	clock := newFakeClock()
	b := New(A100_80G, 2, clock.Now, 1)
	p, err := b.Runner().Start(t.Context(), api.Assignment{TaskID: 1, GPUUUIDs: uuids(b)[:1], Command: Command(Train, time.Hour, 7)})
	if err != nil {
		t.Fatalf("Start() = %v", err)
	}
	if diff := cmp.Diff([]int{1, 0}, processes(t, b, clock.Now())); diff != "" {
		t.Errorf("processes per GPU while running (-want +got):\n%s", diff)
	}

	clock.Add(59 * time.Minute)
	if code, exited := waitExit(p, 5*checkEvery); exited {
		t.Fatalf("exited with %d before its virtual hour", code)
	}
	clock.Add(time.Minute)
	if code, err := p.Wait(); code != 7 || err != nil {
		t.Fatalf("Wait() = %d, %v; want 7 once the virtual hour has passed", code, err)
	}
	clock.Add(time.Minute)
	if diff := cmp.Diff([]int{0, 0}, processes(t, b, clock.Now())); diff != "" {
		t.Errorf("processes per GPU after the exit (-want +got):\n%s", diff)
	}
}

func TestRunnerStop(t *testing.T) {
	clock := newFakeClock()
	b := New(H800_80G, 2, clock.Now, 1)
	p, err := b.Runner().Start(t.Context(), api.Assignment{TaskID: 1, GPUUUIDs: uuids(b), Command: Command(IdleHolder, 24*time.Hour, 0)})
	if err != nil {
		t.Fatalf("Start() = %v", err)
	}
	p.Stop(time.Minute)
	p.Stop(time.Minute)
	if code, err := p.Wait(); code != 143 || err != nil {
		t.Fatalf("Wait() after Stop = %d, %v; want 143", code, err)
	}
	if diff := cmp.Diff([]int{0, 0}, processes(t, b, clock.Now())); diff != "" {
		t.Errorf("processes per GPU after Stop (-want +got):\n%s", diff)
	}
}

func TestRunnerRefusesBadCommands(t *testing.T) {
	tests := map[string]struct {
		command []string
		gpu     string
		wantErr string
	}{
		"real command":      {command: []string{"python", "train.py"}, wantErr: "is not kashi-sim"},
		"empty command":     {wantErr: "is not kashi-sim"},
		"unknown shape":     {command: []string{"kashi-sim", "--shape=pretrain", "--duration=1h"}, wantErr: `unknown --shape "pretrain"`},
		"missing duration":  {command: []string{"kashi-sim", "--shape=train"}, wantErr: "--duration must be positive"},
		"bad duration":      {command: []string{"kashi-sim", "--shape=train", "--duration=soon"}, wantErr: "invalid value"},
		"exit out of range": {command: []string{"kashi-sim", "--shape=eval", "--duration=1h", "--exit=300"}, wantErr: "--exit must be 0..255"},
		"extra arguments":   {command: []string{"kashi-sim", "--shape=eval", "--duration=1h", "data/"}, wantErr: "unexpected arguments"},
		"unknown GPU":       {command: Command(Train, time.Hour, 0), gpu: "GPU-elsewhere", wantErr: `no GPU "GPU-elsewhere" on this node`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			b := New(A100_80G, 1, newFakeClock().Now, 1)
			gpu := tc.gpu
			if gpu == "" {
				gpu = uuids(b)[0]
			}
			p, err := b.Runner().Start(t.Context(), api.Assignment{TaskID: 5, GPUUUIDs: []string{gpu}, Command: tc.command})
			if err == nil {
				p.Stop(0)
				t.Fatalf("Start(%q) = nil error, want %q", tc.command, tc.wantErr)
			}
			if !strings.HasPrefix(err.Error(), "simgpu: start task 5: ") || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Start(%q) = %q, want it to name task 5 and say %q", tc.command, err, tc.wantErr)
			}
			if diff := cmp.Diff([]int{0}, processes(t, b, t0)); diff != "" {
				t.Errorf("processes after a failed start (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCommandParses(t *testing.T) {
	got, err := parseCommand(Command(MemHeavy, 90*time.Minute, 3))
	want := simTask{shape: MemHeavy, duration: 90 * time.Minute, exitCode: 3}
	if err != nil || got != want {
		t.Errorf("parseCommand(Command(...)) = %+v, %v, want %+v", got, err, want)
	}
}

// TestRunnerCheckpointsAndResumes: a task that writes checkpoints writes one on its log each
// time its run passes one, with its progress and time, as the agent reads them; run again
// with KASHI_RESUME_FROM at its last one, it runs what was left and goes on counting from
// there. Without a log folder it writes none. Its progress lines are the log's other lines.
func TestRunnerCheckpointsAndResumes(t *testing.T) {
	clock := newFakeClock()
	b := New(A100_80G, 1, clock.Now, 1)
	dir := t.TempDir()
	cmd := CheckpointCommand(Train, 2*time.Hour, 0, 30*time.Minute)
	start := clock.Now()
	p, err := b.LoggingRunner(dir).Start(t.Context(), api.Assignment{TaskID: 4, GPUUUIDs: uuids(b), Command: cmd, Attempt: 1})
	if err != nil {
		t.Fatalf("Start() = %v", err)
	}
	clock.Add(65 * time.Minute)
	src, ok := p.(agent.OutputSource)
	if !ok {
		t.Fatal("a checkpointing task's process is not an agent.OutputSource")
	}
	log, _ := src.OutputPaths()
	want := "KASHI_CHECKPOINT sim-ckpt:30m0s " + start.Add(30*time.Minute).UTC().Format(time.RFC3339) + "\n" +
		"KASHI_CHECKPOINT sim-ckpt:1h0m0s " + start.Add(time.Hour).UTC().Format(time.RFC3339) + "\n"
	waitFor(t, func() bool { return checkpoints(log) == want })
	p.Stop(0)

	again, err := b.LoggingRunner(dir).Start(t.Context(), api.Assignment{TaskID: 4, GPUUUIDs: uuids(b), Command: cmd, Attempt: 2, ResumeFrom: "sim-ckpt:1h0m0s"})
	if err != nil {
		t.Fatalf("Start() of the rerun = %v", err)
	}
	restart := clock.Now()
	clock.Add(31 * time.Minute)
	relog, _ := again.(agent.OutputSource).OutputPaths()
	waitFor(t, func() bool {
		return checkpoints(relog) == "KASHI_CHECKPOINT sim-ckpt:1h30m0s "+restart.Add(30*time.Minute).UTC().Format(time.RFC3339)+"\n"
	})
	clock.Add(29 * time.Minute)
	if code, err := again.Wait(); code != 0 || err != nil {
		t.Fatalf("the rerun's Wait() = %d, %v; want 0 an hour after it resumed at 1h", code, err)
	}

	plain := New(A100_80G, 1, clock.Now, 2)
	q, err := plain.Runner().Start(t.Context(), api.Assignment{TaskID: 5, GPUUUIDs: uuids(plain), Command: cmd})
	if err != nil {
		t.Fatal(err)
	}
	if log, _ := q.(agent.OutputSource).OutputPaths(); log != "" {
		t.Errorf("a node without a log folder logs to %q", log)
	}
	q.Stop(0)
}

// waitFor waits until ok holds, for what a simulated task does on its own ticker.
func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(checkEvery) {
		if ok() {
			return
		}
	}
	t.Fatal("not within 10 s")
}

// checkpoints is the KASHI_CHECKPOINT lines of the log at path.
func checkpoints(path string) string {
	b, _ := os.ReadFile(path)
	var out string
	for line := range strings.Lines(string(b)) {
		if strings.HasPrefix(line, "KASHI_CHECKPOINT ") {
			out += line
		}
	}
	return out
}

// outputs is the KASHI_OUTPUT lines of the log at path.
func outputs(path string) []string {
	b, _ := os.ReadFile(path)
	var out []string
	for line := range strings.Lines(string(b)) {
		if strings.HasPrefix(line, "KASHI_OUTPUT ") {
			out = append(out, strings.TrimSpace(line))
		}
	}
	return out
}

// TestTrainingReportsOutput: a simulated training task writes the samples it trained with
// each progress line and when it is stopped, at a rate that differs by card model and grows
// less than linearly with its cards; an evaluation reports none.
func TestTrainingReportsOutput(t *testing.T) {
	run := func(cfg gpus.Config, n int, shape Shape) []string {
		clock := newFakeClock()
		b := New(cfg, n, clock.Now, 1)
		p, err := b.LoggingRunner(t.TempDir()).Start(t.Context(), api.Assignment{TaskID: 9, GPUUUIDs: uuids(b), Command: Command(shape, time.Hour, 0)})
		if err != nil {
			t.Fatal(err)
		}
		log, _ := p.(agent.OutputSource).OutputPaths()
		clock.Add(10 * time.Minute)
		if shape != Eval {
			waitFor(t, func() bool { return len(outputs(log)) == 2 })
		}
		p.Stop(0)
		p.Wait()
		return outputs(log)
	}
	// 400 a second on an A100 for 5 then 10 minutes; stopped at 10 minutes.
	if got, want := run(A100_80G, 1, Train), []string{"KASHI_OUTPUT 120000 samples", "KASHI_OUTPUT 240000 samples", "KASHI_OUTPUT 240000 samples"}; !cmp.Equal(got, want) {
		t.Errorf("1 A100's output lines = %q, want %q", got, want)
	}
	// Two A100s: 400 × 2^0.85 = 721 a second (720.999…), 90 % of linear.
	if got := run(A100_80G, 2, Train); len(got) != 3 || got[2] != "KASHI_OUTPUT 432600 samples" {
		t.Errorf("2 A100s' output lines = %q, want 432,600 samples at 10 minutes", got)
	}
	// An RTX 4090 trains 180 a second.
	if got := run(RTX4090_24G, 1, Finetune); len(got) != 3 || got[2] != "KASHI_OUTPUT 108000 samples" {
		t.Errorf("1 RTX 4090's output lines = %q, want 108,000 samples at 10 minutes", got)
	}
	if got := run(A100_80G, 1, Eval); len(got) != 0 {
		t.Errorf("an evaluation's output lines = %q, want none", got)
	}
}
