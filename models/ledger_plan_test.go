package models

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A project's ledger reads each page of GPUs' allocations from the ledger's index, not from
// the project's (which would read every allocation of the project once per page).
func TestLedgerPageReadsTheLedgerIndex(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "kashi.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	from := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for _, project := range []int64{0, 7} {
		cond, args := LedgerQuery{From: from, To: from.AddDate(0, 1, 0), ProjectID: project}.where("")
		for id := range ledgerPage {
			args = append(args, int64(id+1))
		}
		var plan []struct{ Detail string }
		if err := s.db.WithContext(ctx).Raw("EXPLAIN QUERY PLAN "+s.ledgerPageQuery(cond, ledgerPage), args...).Scan(&plan).Error; err != nil {
			t.Fatal(err)
		}
		var details []string
		for _, p := range plan {
			details = append(details, p.Detail)
		}
		got := strings.Join(details, "; ")
		if !strings.Contains(got, "idx_allocations_ledger") || strings.Contains(got, "TEMP B-TREE") {
			t.Errorf("project %d: the plan of a page of allocations = %q, want idx_allocations_ledger and no sort", project, got)
		}
	}
}
