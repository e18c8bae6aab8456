package models_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"kashi/models"
	"kashi/models/modelstest"
)

// On SQLite a node's samples and a submit take the one writer before the background's writes
// that asked for it first (a write queued behind counts, when its turn comes, what was
// committed before it), and those writes still get it after them.
func TestSamplesAndSubmitsGoAheadInTheWritersQueue(t *testing.T) {
	ctx := context.Background()
	s := modelstest.SQLite(t, models.Options{})
	node := registerNode(t, s, "ahead", "a100", 1)
	if _, err := s.EnsureProject(ctx, "vision", t0); err != nil {
		t.Fatal(err)
	}
	hold, err := models.HoldWriter(s)
	if err != nil {
		t.Fatal(err)
	}
	release := sync.OnceFunc(hold)
	defer release() // a failed wait below must not leave the store unable to close
	counted := make(chan [2]int64, 1)
	go func() { // a background write, queued first
		var n [2]int64
		err := models.DB(s).WithContext(ctx).Transaction(func(tx *gorm.DB) error {
			if err := tx.Table("gpu_samples").Count(&n[0]).Error; err != nil {
				return err
			}
			return tx.Table("tasks").Count(&n[1]).Error
		})
		if err != nil {
			t.Error(err)
		}
		counted <- n
	}()
	waitWriters(t, s, 0, 1)
	answered := make(chan error, 2)
	go func() {
		_, err := s.IngestSamples(ctx, node.ID, []models.Reading{sample("ahead-gpu0", t0, 50, 100)}, t0.Add(time.Second))
		answered <- err
	}()
	waitWriters(t, s, 1, 1)
	go func() {
		_, _, err := s.CreateTask(ctx, models.NewTask{Project: "vision", Name: "x", Owner: "a", GPUs: 1, Queue: models.QueueShort,
			Priority: "normal", Command: []string{"x"}, DataReady: true}, models.DefaultTaskLimits, t0)
		answered <- err
	}()
	waitWriters(t, s, 2, 1)
	release()
	for range 2 {
		if err := <-answered; err != nil {
			t.Fatal(err)
		}
	}
	if n := <-counted; n != [2]int64{1, 1} {
		t.Errorf("the write queued first saw %d samples and %d tasks when its turn came, want both written before it", n[0], n[1])
	}
}

// waitWriters waits until ahead and behind writes wait for SQLite's writer.
func waitWriters(t *testing.T, s *models.Store, ahead, behind int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		a, b := models.WritersQueued(s)
		if a == ahead && b == behind {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d ahead and %d behind wait for the writer, want %d and %d", a, b, ahead, behind)
		}
	}
}
