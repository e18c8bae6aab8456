package models_test

import (
	"context"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestDataCheckSilence: a task waiting on a data check says how long the check has gone
// without an answer once that passes models.DataCheckSilentAfter, counted from its submit and
// then from each answer the store records; a task waiting on no check (ready by hand) and a
// task no longer waiting never do, and an answer does not touch a task that stopped waiting.
func TestDataCheckSilence(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		templateStore(t, s)
		submit := func(name string, check models.DataCheck, ready bool) int64 {
			tk, _, err := s.CreateTask(ctx, models.NewTask{Project: "vision", Name: name, Owner: "a", GPUs: 1, Queue: models.QueueLong,
				Priority: models.PriorityNormal, Command: []string{"x"}, DataCheck: check, DataReady: ready}, models.DefaultTaskLimits, t0)
			if err != nil {
				t.Fatal(err)
			}
			return tk.ID
		}
		url := models.DataCheck{URL: "https://data.example.com/ready"}
		checked, manual, queued := submit("checked", url, false), submit("manual", models.DataCheck{}, false), submit("queued", url, true)
		after := models.DataCheckSilentAfter
		silence := func(id int64, now time.Time) time.Duration {
			row, err := s.TaskByID(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			return row.DataCheckSilence(now)
		}
		for _, c := range []struct {
			id   int64
			at   time.Time
			want time.Duration
		}{{checked, t0.Add(after), 0}, {checked, t0.Add(after + time.Second), after + time.Second},
			{manual, t0.Add(10 * after), 0}, {queued, t0.Add(10 * after), 0}} {
			if got := silence(c.id, c.at); got != c.want {
				t.Errorf("task %d at t0+%v: silence %v, want %v", c.id, c.at.Sub(t0), got, c.want)
			}
		}
		answer := t0.Add(3 * after)
		if err := s.MarkDataChecked(ctx, []int64{checked, queued}, answer); err != nil {
			t.Fatal(err)
		}
		if got := silence(checked, answer.Add(after)); got != 0 {
			t.Errorf("silence %v after the answer, want 0", got)
		}
		if got := silence(checked, answer.Add(2*after)); got != 2*after {
			t.Errorf("silence %v two periods after the answer, want %v", got, 2*after)
		}
		if row, _ := s.TaskByID(ctx, queued); row.DataCheckedAt != nil {
			t.Errorf("a queued task was marked checked at %v", row.DataCheckedAt)
		}
	})
}
