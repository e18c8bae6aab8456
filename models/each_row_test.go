package models

import (
	"context"
	"database/sql/driver"
	"errors"
	"path/filepath"
	"testing"
)

// eachRow stops soon after its context ends, though it reads past the driver's own checks.
func TestEachRowStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "kashi.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const total = 100 * cancelCheck
	rows := 0
	err = s.eachRow(ctx, `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ?) SELECT x FROM c`,
		[]any{int64(total)}, func([]driver.Value) error {
			if rows++; rows == 10 {
				cancel()
			}
			return nil
		})
	if !errors.Is(err, context.Canceled) || rows > 10+cancelCheck {
		t.Errorf("eachRow cancelled at row 10 = %v after %d rows, want context.Canceled within %d more", err, rows, cancelCheck)
	}
}
