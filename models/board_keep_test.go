package models_test

import (
	"context"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestBoardKeptFreshBehindViewers: with a lag, a board that was viewed is read again after a
// change by the keeper, with no request waiting for it; and the next view finds the change.
func TestBoardKeptFreshBehindViewers(t *testing.T) {
	s := modelstest.SQLite(t, models.Options{BoardLag: 100 * time.Millisecond})
	ctx := context.Background()
	registerNode(t, s, "n1", "p", 2)
	if rows, err := s.BoardGPUs(ctx, models.BoardFilter{}); err != nil || len(rows) != 2 {
		t.Fatalf("first view: %d rows, %v", len(rows), err)
	}
	registerNode(t, s, "n2", "p", 2)
	deadline := time.Now().Add(10 * time.Second)
	for models.BoardSnapGen(s) != models.BoardGen(s) {
		if time.Now().After(deadline) {
			t.Fatalf("snapshot at change %d, store at %d: the keeper did not read the board again", models.BoardSnapGen(s), models.BoardGen(s))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if rows, err := s.BoardGPUs(ctx, models.BoardFilter{}); err != nil || len(rows) != 4 {
		t.Errorf("view after the keeper's read: %d rows, %v; want 4", len(rows), err)
	}
}
