package models

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"
)

// The rhythm of the data checks.
const (
	// DataCheckEvery is how often the server runs the data checks of the tasks waiting for
	// their data.
	DataCheckEvery = time.Minute
	// DataCheckSilentAfter is how long a task's data check may go without an answer before
	// the task says so: five rounds of checks, enough for a URL that is slow once or a round
	// that came late, short enough that a check that never runs shows within minutes.
	DataCheckSilentAfter = 5 * DataCheckEvery
)

// MarkDataChecked records that the data checks of the tasks ids answered at now (found their
// data or not). A task that no longer waits for its data is left as it is. It changes nothing
// the board shows.
func (s *Store) MarkDataChecked(ctx context.Context, ids []int64, now time.Time) error {
	if len(ids) == 0 {
		return nil
	}
	err := s.db.WithContext(quiet(ctx)).Model(&Task{}).Where("id IN ? AND state = ?", ids, TaskWaitingData).
		Update("data_checked_at", UTC(now)).Error
	if err != nil {
		return fmt.Errorf("models: data checked: %w", err)
	}
	return nil
}

// DataCheckSilence is how long the data check of a task waiting for its data has gone without
// an answer — since its last answer, or since its submit before the first — when that is
// longer than DataCheckSilentAfter; 0 otherwise, and for a task that waits on no check (its
// data is marked ready by hand) or no longer waits.
func (t Task) DataCheckSilence(now time.Time) time.Duration {
	if t.State != TaskWaitingData || !t.waitsOnCheck() {
		return 0
	}
	since := t.SubmittedAt
	if t.DataCheckedAt != nil && t.DataCheckedAt.After(since) {
		since = *t.DataCheckedAt
	}
	if d := now.Sub(since); d > DataCheckSilentAfter {
		return d
	}
	return 0
}

// waitsOnCheck reports whether the server checks the task's data: its data check names a
// path or a URL, or one of its data locations is one the checks can look at (Checkable).
func (t Task) waitsOnCheck() bool {
	var dc DataCheck
	if t.DataCheck != "" {
		json.Unmarshal([]byte(t.DataCheck), &dc) // written by the store; always decodes
	}
	return dc.Path != "" || dc.URL != "" || slices.ContainsFunc(slices.Collect(maps.Values(t.DataLocationMap())), Checkable)
}
