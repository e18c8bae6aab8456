package simgpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/NVIDIA/go-nvml/pkg/nvml/mock/gpus"

	"kashi/api"
)

// logEvery is how often, in virtual time, a simulated task writes a progress line.
const logEvery = 5 * time.Minute

// taskLog is the log a simulated task writes, as a training or evaluation script prints its
// progress: a line when it starts, one every logEvery of virtual time, one when it ends, and
// for a task that writes checkpoints (CheckpointCommand) a KASHI_CHECKPOINT line each time
// its run passes one. A training task (Train, Finetune, MemHeavy) also writes the samples
// it has trained so far as a KASHI_OUTPUT line with each progress line and when it ends or
// is stopped, at SamplesPerSecond. The agent follows it as it follows a real task's log
// (agent.OutputSource), so the server's live tail of a demo task has lines and its
// checkpoints are reported.
type taskLog struct {
	path  string
	shape Shape
	gpus  int
	// start is when this run began, d how long it runs: the rest of a run of total that
	// began resumed into it (0 for a first run).
	start                    time.Time
	d, resumed, total, every time.Duration
	rng                      *rand.Rand
	// rate is the samples a second the task trains on its cards; 0 for a task that reports
	// no output.
	rate float64

	// mu guards what follows: the task's run and a stop both write.
	mu sync.Mutex
	// next is the virtual time of the next progress line; n counts them. ended is set once
	// the last line is written.
	next  time.Time
	n     int
	ended bool
	// written is the last checkpoint written, as progress into the whole run.
	written time.Duration
}

// newTaskLog makes the log of assignment a's attempt in dir, with its first line: run is
// what is left of the task's run after resumed (a rerun's checkpoint); nil when dir is ""
// (no log is kept) or the file cannot be made.
func newTaskLog(dir string, a api.Assignment, run simTask, resumed time.Duration, perCard float64, now time.Time) *taskLog {
	if dir == "" {
		return nil
	}
	name := fmt.Sprintf("task-%d-attempt-%d.log", a.TaskID, max(a.Attempt, 1))
	l := &taskLog{path: filepath.Join(dir, name), shape: run.shape, gpus: len(a.GPUUUIDs), start: now,
		d: run.duration, resumed: resumed, total: run.duration + resumed, every: run.every,
		written: resumed, rng: rand.New(rand.NewPCG(uint64(a.TaskID), 31)), next: now.Add(logEvery)}
	switch run.shape {
	case Train, Finetune, MemHeavy:
		l.rate = SamplesPerSecond(perCard, l.gpus)
	}
	if err := os.WriteFile(l.path, nil, 0o644); err != nil {
		return nil
	}
	first := fmt.Sprintf("kashi-sim: %s on %d GPU(s) for %s", run.shape, l.gpus, l.total)
	if resumed > 0 {
		first += fmt.Sprintf(", resuming at %s from %s", resumed, a.ResumeFrom)
	}
	l.write(now, first)
	return l
}

// until writes the progress lines due by now.
func (l *taskLog) until(now time.Time) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.due(now)
}

// due writes the progress lines and checkpoints due by now, unless the log ended; l.mu is
// held.
func (l *taskLog) due(now time.Time) {
	for !l.ended && !l.next.After(now) && l.next.Before(l.start.Add(l.d)) {
		l.n++
		l.write(l.next, l.progress(l.next))
		l.output(l.next)
		l.next = l.next.Add(logEvery)
	}
	for !l.ended && l.every > 0 {
		next := (l.written/l.every + 1) * l.every
		at := l.start.Add(next - l.resumed)
		if next >= l.total || at.After(now) {
			break
		}
		// The agent reads the line as it is, unstamped.
		l.append(fmt.Sprintf("KASHI_CHECKPOINT %s%s %s\n", checkpointPrefix, next, at.UTC().Format(time.RFC3339)))
		l.written = next
	}
}

// end writes the last line: the exit code, or that a stop ended it.
func (l *taskLog) end(now time.Time, code int) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.due(now)
	l.ended = true
	l.output(now)
	if code == stoppedExitCode {
		l.write(now, "received SIGTERM: stopping")
		return
	}
	l.write(now, fmt.Sprintf("done: exit code %d", code))
}

// progress is the line at virtual time at, as the task's shape would print it.
func (l *taskLog) progress(at time.Time) string {
	frac := min(max((l.resumed+at.Sub(l.start)).Seconds()/max(l.total.Seconds(), 1), 0), 1)
	steps := max(int(l.total/time.Minute)*10, 10)
	step := int(frac * float64(steps))
	noise := l.rng.Float64()*0.04 - 0.02
	loss := 2.4*math.Exp(-3*frac) + 0.35 + noise
	switch l.shape {
	case Eval:
		return fmt.Sprintf("eval batch %d/%d  accuracy %.3f", step, steps, 0.62+0.2*frac+noise)
	case IdleHolder:
		return fmt.Sprintf("waiting for /data/shards (attempt %d): not ready, retrying in 5m", l.n)
	case MemHeavy:
		return fmt.Sprintf("step %d/%d  loss %.3f  activations offloaded: 74 GiB per GPU", step, steps, loss)
	case Serve:
		return fmt.Sprintf("serving: %d requests so far, %d GPU(s) healthy", l.n*300+l.rng.IntN(300), l.gpus)
	}
	return fmt.Sprintf("step %d/%d  loss %.3f  lr %.1e  %d samples/s", step, steps, loss, 3e-4*(1-frac)+1e-5, int(l.rate)+l.rng.IntN(40))
}

// output writes the samples trained by virtual time at, for a task that reports output: its
// rate over its run so far, to its end at most (a rerun's from its checkpoint on).
func (l *taskLog) output(at time.Time) {
	if l.rate == 0 {
		return
	}
	n := int64(math.Round(l.rate * min(max(at.Sub(l.start), 0), l.d).Seconds()))
	l.append(fmt.Sprintf("KASHI_OUTPUT %d samples\n", n))
}

// SamplesPerSecond is what a simulated training task trains a second on gpus cards that
// each train perCard alone: less than gpus times as much, as data-parallel training loses
// to its all-reduce (gpus^0.85: 90 % of linear on 2 cards, 81 % on 4, 73 % on 8).
func SamplesPerSecond(perCard float64, gpus int) float64 {
	return perCard * math.Pow(float64(max(gpus, 1)), 0.85)
}

// perCardSamples is a training task's samples a second on one card of model cfg: the
// models differ, so a trial across specs finds their cost per sample.
func perCardSamples(cfg gpus.Config) float64 {
	switch cfg.Name {
	case RTX4090_24G.Name:
		return 180
	case H800_80G.Name:
		return 720
	}
	return 400
}

// write appends a line stamped at virtual time at.
func (l *taskLog) write(at time.Time, line string) {
	l.append(at.UTC().Format("2006-01-02T15:04:05Z") + " " + line + "\n")
}

// append appends text to the log. A write that fails loses the text only.
func (l *taskLog) append(text string) {
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return
	}
	defer f.Close()
	f.WriteString(text)
}
