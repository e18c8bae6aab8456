package agent

import (
	"context"
	"time"

	"kashi/api"
)

const (
	// defaultRestartBackoff is the wait before a service replica's first restart.
	defaultRestartBackoff = 10 * time.Second
	// maxRestartBackoff bounds the wait, which doubles with each restart after a short run.
	maxRestartBackoff = 5 * time.Minute
	// steadyRun is how long a replica must have run for its next exit to wait the first
	// backoff again, as if it had never failed.
	steadyRun = 10 * time.Minute
)

// Restarter is a Runner that starts a task that ran on the node before in another way than
// a new one (a SupervisedRunner keeps the task's folder and appends to its log).
type Restarter interface {
	Runner
	// Restart starts an ended task's process again.
	Restart(ctx context.Context, a api.Assignment) (Process, error)
}

// restarts is a service replica's restart record: how many times the agent started it again,
// and the last wait before that.
type restarts struct {
	count   int
	backoff time.Duration
}

// waiting is a service replica whose process exited by itself: it starts again at at, with
// its log followed on from where it was. code and err are its exit, reported if it is
// stopped before then.
type waiting struct {
	restarts
	at   time.Time
	out  *outputTracker
	code int
	err  error
}

// restartLater keeps an exited service replica to start again after its backoff: the first
// one, or twice the last when it ran for less than steadyRun.
func (a *Agent) restartLater(id int64, t *task, e taskExit) {
	now := a.cfg.Now()
	r := t.restarts
	if r.backoff == 0 || now.Sub(t.startedAt) >= steadyRun {
		r.backoff = a.cfg.RestartBackoff
	} else {
		r.backoff = min(2*r.backoff, maxRestartBackoff)
	}
	a.waiting[id] = &waiting{restarts: r, at: now.Add(r.backoff), out: t.out, code: e.code, err: e.err}
	a.log.Warn("agent service replica exited, starting it again later", "task", id, "exit_code", e.code, "err", e.err,
		"restarts", r.count, "in", r.backoff)
}

// restart starts a waiting service replica again and counts it; the next scrape of its
// metrics page says its server restarted. A failed start waits again, longer.
func (a *Agent) restart(ctx context.Context, as api.Assignment, w *waiting) {
	delete(a.waiting, as.TaskID)
	as.MemoryLimitMiB, as.CPULimitMillis = a.limits(as)
	var proc Process
	var err error
	if r, ok := a.runner.(Restarter); ok {
		proc, err = r.Restart(ctx, as)
	} else {
		proc, err = a.runner.Start(ctx, as)
	}
	w.count++
	if err != nil {
		a.log.Error("agent service replica failed to start again", "task", as.TaskID, "err", err)
		a.restartLater(as.TaskID, &task{as: as, out: w.out, restarts: w.restarts, startedAt: a.cfg.Now()}, taskExit{id: as.TaskID, code: w.code, err: err})
		return
	}
	a.log.Info("agent service replica started again", "task", as.TaskID, "restarts", w.count)
	a.track(ctx, as, proc)
	t := a.tasks[as.TaskID]
	t.restarts = w.restarts
	if w.out != nil {
		t.out = w.out
	}
	t.serving.restarted = true
}

// giveUp reports the exit of a waiting service replica the server stopped or no longer lists.
func (a *Agent) giveUp(id int64, w *waiting, why string) {
	delete(a.waiting, id)
	a.ended[id] = 1 // a service is never rerun: its first attempt
	req := api.TaskStatusRequest{State: api.TaskExited, TS: a.cfg.Now(), ExitCode: w.code}
	if w.err != nil {
		req.Message = w.err.Error()
	}
	a.log.Info("agent service replica not started again", "task", id, "why", why, "exit_code", w.code)
	if a.report(id, req) {
		a.reported(id)
	}
}
