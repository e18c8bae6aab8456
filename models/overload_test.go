package models

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mattn/go-sqlite3"
)

func TestOverloaded(t *testing.T) {
	for name, tc := range map[string]struct {
		err  error
		want bool
	}{
		"busy":            {fmt.Errorf("models: x: %w", ErrBusy), true},
		"deadline":        {fmt.Errorf("models: x: %w", context.DeadlineExceeded), true},
		"sqlite locked":   {fmt.Errorf("models: x: %w", sqlite3.Error{Code: sqlite3.ErrBusy}), true},
		"too many":        {fmt.Errorf("models: x: %w", &pgconn.PgError{Code: "53300"}), true},
		"not found":       {fmt.Errorf("models: x: %w", ErrNotFound), false},
		"unique":          {&pgconn.PgError{Code: "23505"}, false},
		"sqlite readonly": {sqlite3.Error{Code: sqlite3.ErrReadonly}, false},
		"other":           {errors.New("boom"), false},
	} {
		if got := Overloaded(tc.err); got != tc.want {
			t.Errorf("%s: Overloaded(%v) = %v, want %v", name, tc.err, got, tc.want)
		}
	}
}

// With every hashing slot taken, a login waits no longer than its context allows.
func TestHashSlotsBound(t *testing.T) {
	for range cap(hashSlots) {
		hashSlots <- struct{}{}
	}
	defer func() {
		for range cap(hashSlots) {
			<-hashSlots
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ran := false
	if err := withHashSlot(ctx, func() { ran = true }); !errors.Is(err, context.Canceled) || ran {
		t.Errorf("withHashSlot with no slot = %v (ran %v), want canceled without running", err, ran)
	}
}
