package models_test

import (
	"context"
	"strings"
	"testing"

	"kashi/models"
	"kashi/models/modelstest"
)

// What the quotas' use reads on every call goes through indexes to the allocations that
// are open, ended after the settled hour, or new: never the month's allocations one by one.
// (Both fail on SQLite with the new rows' end bounds written plainly: it took the end's
// index over the month for them, 15 ms a call at 300,000 allocations against 1.8.)
func TestUsageReadsItsRowsThroughIndexes(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		for name, q := range map[string][]any{
			models.UsageUnkeptSQL:       {t0, int64(1000), t0},
			models.UsageSettledSinceSQL: {t0, t0, int64(1000), int64(900), int64(1000), t0, t0},
		} {
			plan, err := models.Explain(ctx, s, name, q...)
			if err != nil {
				t.Fatal(err)
			}
			text := strings.Join(plan, "\n")
			if readsEveryAllocation(plan) {
				t.Fatalf("a read of the quotas' use goes through every allocation; the plan:\n%s", text)
			}
			// The new rows by the ids' range, not by the end's index (every row ended before).
			if !models.IsPostgres(s) && !strings.Contains(text, "INTEGER PRIMARY KEY (rowid>?") {
				t.Fatalf("a read of the quotas' use reads the new allocations by their end; the plan:\n%s", text)
			}
		}
	})
}
