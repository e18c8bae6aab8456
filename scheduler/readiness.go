package scheduler

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	"kashi/models"
)

// ReadinessStore is what the readiness checker needs of models.Store.
type ReadinessStore interface {
	ActiveTasks(ctx context.Context) ([]models.TaskRow, error)
	MarkTaskReady(ctx context.Context, id int64, reason string, now time.Time) error
}

// Readiness runs the data checks that tasks declare (数据就绪度): a path that must exist on
// the server's view of shared storage, or a URL that must answer 2xx. A task whose check
// passes joins the queue and the scheduler is woken.
type Readiness struct {
	store   ReadinessStore
	trigger func()
	now     func() time.Time
	client  *http.Client
	log     *slog.Logger
}

// NewReadiness returns a checker; trigger wakes the scheduler after a task becomes ready.
func NewReadiness(store ReadinessStore, trigger func(), now func() time.Time, log *slog.Logger) *Readiness {
	return &Readiness{store: store, trigger: trigger, now: now, log: log,
		client: &http.Client{Timeout: 5 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		}}}
}

// Run checks every interval (real time) until ctx ends.
func (r *Readiness) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if n, err := r.CheckOnce(ctx); err != nil && ctx.Err() == nil {
				r.log.Error("data readiness checks", "err", err)
			} else if n > 0 {
				r.trigger()
			}
		}
	}
}

// CheckOnce runs the check of every task waiting for data that declares one and returns how
// many became ready.
func (r *Readiness) CheckOnce(ctx context.Context) (int, error) {
	tasks, err := r.store.ActiveTasks(ctx)
	if err != nil {
		return 0, err
	}
	ready := 0
	for _, t := range tasks {
		if t.State != models.TaskWaitingData || t.DataCheck == "" {
			continue
		}
		var check models.DataCheck
		if err := json.Unmarshal([]byte(t.DataCheck), &check); err != nil {
			return ready, fmt.Errorf("scheduler: data check of task %d: %w", t.ID, err)
		}
		ok, what := r.check(ctx, check)
		if !ok {
			continue
		}
		err := r.store.MarkTaskReady(ctx, t.ID, "data check passed: "+what, r.now())
		if err != nil && !errors.Is(err, models.ErrConflict) {
			return ready, err
		}
		ready++
	}
	return ready, nil
}

// check runs one declared check.
func (r *Readiness) check(ctx context.Context, c models.DataCheck) (ok bool, what string) {
	if c.Path != "" {
		_, err := os.Stat(c.Path)
		return err == nil, c.Path + " exists"
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.URL, nil)
	if err != nil {
		return false, ""
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return false, ""
	}
	resp.Body.Close()
	return resp.StatusCode/100 == 2, fmt.Sprintf("%s answered %d", c.URL, resp.StatusCode)
}
