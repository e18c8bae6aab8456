package billing_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/billing"
	"kashi/models"
	"kashi/models/modelstest"
)

// rollupCounter is the store as billing reads it, counting the rollups its ledger gives.
type rollupCounter struct {
	*models.Store
	rollups int
}

func (r *rollupCounter) LedgerGPUs(ctx context.Context, q models.LedgerQuery, each func(int64, []models.LedgerAllocation, []models.GPURollup) error) error {
	return r.Store.LedgerGPUs(ctx, q, func(gpu int64, as []models.LedgerAllocation, rs []models.GPURollup) error {
		r.rollups += len(rs)
		return each(gpu, as, rs)
	})
}

// A month whose bills are all issued reads none of its rollups (pool idle is held time, and
// the bills are frozen), and gives the pool idle and bills it gave before; while one bill
// with card time is not issued, its classes are still read from the rollups.
func TestMonthBillsOfAnIssuedMonthReadNoRollups(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		alpha := setup(t, s)
		beta, err := s.EnsureProject(ctx, "beta", t0)
		if err != nil {
			t.Fatal(err)
		}
		runTask(t, s, "alpha", "train", 2, false)
		runTaskOn(t, s, "beta", "eval", 2, 1, false)
		src := &rollupCounter{Store: s}
		now := afterMarch.Add(time.Hour)
		before, err := billing.MonthBills(ctx, src, "2026-03", now)
		if err != nil {
			t.Fatal(err)
		}
		if src.rollups == 0 {
			t.Fatal("MonthBills of a month with no bill issued read no rollups")
		}

		if _, err := billing.Issue(ctx, s, alpha.ID, "2026-03", "finance", afterMarch); err != nil {
			t.Fatal(err)
		}
		src.rollups = 0
		half, err := billing.MonthBills(ctx, src, "2026-03", now)
		if err != nil {
			t.Fatal(err)
		}
		if src.rollups == 0 || projectBill(t, half, "beta").EffectiveS != projectBill(t, before, "beta").EffectiveS || projectBill(t, half, "beta").EffectiveS == 0 {
			t.Errorf("with beta's bill not issued: %d rollups read, beta's effective time %d s, want some and %d s",
				src.rollups, projectBill(t, half, "beta").EffectiveS, projectBill(t, before, "beta").EffectiveS)
		}

		if _, err := billing.Issue(ctx, s, beta.ID, "2026-03", "finance", afterMarch); err != nil {
			t.Fatal(err)
		}
		src.rollups = 0
		after, err := billing.MonthBills(ctx, src, "2026-03", now)
		if err != nil {
			t.Fatal(err)
		}
		if src.rollups != 0 {
			t.Errorf("MonthBills of a month whose bills are issued read %d rollups, want none", src.rollups)
		}
		if diff := cmp.Diff(before.PoolIdle, after.PoolIdle); diff != "" {
			t.Errorf("pool idle once issued (-before +after):\n%s", diff)
		}
		for _, name := range []string{"alpha", "beta"} {
			b, a := projectBill(t, before, name), projectBill(t, after, name)
			if a.Issued == nil || a.NominalS != b.NominalS || a.EffectiveS != b.EffectiveS || a.Held != b.Held || a.TotalFen != b.TotalFen {
				t.Errorf("%s once issued = %d/%d s, %+v, %d fen, issued %v; want the frozen %d/%d s, %+v, %d fen",
					name, a.NominalS, a.EffectiveS, a.Held, a.TotalFen, a.Issued, b.NominalS, b.EffectiveS, b.Held, b.TotalFen)
			}
		}
	})
}

// projectBill is the bill of project name in res.
func projectBill(t *testing.T, res billing.Result, name string) billing.Bill {
	t.Helper()
	for _, b := range res.Bills {
		if b.Project == name {
			return b
		}
	}
	t.Fatalf("no bill of %s", name)
	return billing.Bill{}
}
