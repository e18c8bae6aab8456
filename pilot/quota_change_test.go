package pilot

import (
	"context"
	"testing"
	"time"

	"kashi/billing"
	"kashi/models"
)

// TestQuotaChangeReconciles: in the demo's past an admin cuts vision's A100 quota from 24
// cards to 8 on 15 February. Its periods are 1–15 and 15 February–1 March: vision's card
// time held and used in the two adds up to its issued February bill's A100 lines, and its
// tasks to those it submitted in the month of the spec or of any spec on its cards; the counterfactual replays every task of the
// period after on the A100 pool under the old quota and the new, and the cut makes vision's
// tasks wait longer and the pool cost less. The demo's first quota of a project is no change.
func TestQuotaChangeReconciles(t *testing.T) {
	ctx := context.Background()
	s := demoPast(t)
	loc, err := billing.Location(ctx, s)
	if err != nil {
		t.Fatal(err)
	}
	vision, err := s.ProjectByName(ctx, "vision")
	if err != nil {
		t.Fatal(err)
	}
	qs, err := s.Quotas(ctx, vision.ID)
	if err != nil || len(qs) != 1 {
		t.Fatalf("vision's quotas = %v, %v", qs, err)
	}
	q := qs[0]
	q.MaxGPUs, q.GuaranteedGPUs = 8, 4
	at := time.Date(2026, 2, 15, 0, 0, 0, 0, loc)
	if _, err := s.SetQuota(ctx, "admin", q, at); err != nil {
		t.Fatal(err)
	}
	edits, err := s.QuotaEdits(ctx, vision.ID, time.Time{}, time.Time{})
	if err != nil || len(edits) != 2 || edits[1].Before != nil {
		t.Fatalf("vision's quota edits = %+v, %v; want the demo's first and the cut", edits, err)
	}
	if _, err := MeasureChange(ctx, s, QuotaRef(vision.ID, edits[1].ID), demoStart); err != ErrNoChange {
		t.Errorf("the project's first quota measured: %v, want ErrNoChange", err)
	}
	if _, err := MeasureChange(ctx, s, QuotaRef(vision.ID+1, edits[0].ID), demoStart); err != ErrNoChange {
		t.Errorf("the change under another project measured: %v, want ErrNoChange", err)
	}
	c, err := MeasureChange(ctx, s, QuotaRef(vision.ID, edits[0].ID), demoStart)
	if err != nil {
		t.Fatal(err)
	}
	feb, mar := time.Date(2026, 2, 1, 0, 0, 0, 0, loc), time.Date(2026, 3, 1, 0, 0, 0, 0, loc)
	if !c.Ready || !c.From.Equal(feb) || !c.To.Equal(mar) || c.By != "admin" || c.Quota.Project != "vision" ||
		c.Quota.Old.MaxGPUs != 24 || c.Quota.New.MaxGPUs != 8 {
		t.Fatalf("quota change: ready %v, %s – %s, by %q, %+v; want February around 15 February", c.Ready, c.From, c.To, c.By, c.Quota)
	}
	held, effective := issuedCardTime(t, s, "2026-02", vision.ID, q.Spec)
	if got := c.Before.HeldS + c.After.HeldS; got != held || held == 0 {
		t.Errorf("vision's held before + after = %d + %d = %d s, its February bill's %s lines %d s", c.Before.HeldS, c.After.HeldS, got, q.Spec, held)
	}
	if got := c.Before.EffectiveS + c.After.EffectiveS; got != effective {
		t.Errorf("vision's effective before + after = %d s, its February bill's %d s", got, effective)
	}
	if fen := billing.Amount(c.After.HeldS, c.After.Cost.RateFen); c.After.Cost.ElasticFen != fen {
		t.Errorf("after's cost %d fen, its held card time at the list rate %d", c.After.Cost.ElasticFen, fen)
	}
	spans, err := s.TaskSpans(ctx, feb, mar)
	if err != nil {
		t.Fatal(err)
	}
	onSpec := ranOnSpec(t, s, q.Spec, feb, mar)
	tasks := 0
	for _, sp := range spans {
		if sp.Project == "vision" && (sp.Spec == q.Spec || sp.Spec == "" && onSpec[sp.ID]) && !sp.SubmittedAt.Before(feb) && sp.SubmittedAt.Before(mar) {
			tasks++
		}
	}
	if got := c.Before.Tasks + c.After.Tasks; got != tasks || tasks == 0 {
		t.Errorf("vision's tasks before + after = %d, submitted in February %d", got, tasks)
	}
	cf := c.Counter
	if cf.Tasks == 0 || cf.SavedFen != cf.OldFen-cf.NewFen || cf.OldFen <= 0 {
		t.Errorf("counterfactual %+v", cf)
	}
	if cf.NewMeanWaitS <= cf.OldMeanWaitS {
		t.Errorf("cutting vision to 8 cards: %+v; want the tasks to wait longer", cf)
	}
	t.Logf("counter %+v idle %+.1f%%", cf, cf.IdlePct())
}

// ranOnSpec is the tasks that held cards of spec in [from, to), by id, read from the ledger.
func ranOnSpec(t *testing.T, s *models.Store, spec string, from, to time.Time) map[int64]bool {
	t.Helper()
	ctx := context.Background()
	nodes, err := s.LedgerNodes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ofSpec := map[int64]bool{}
	for _, n := range nodes {
		ofSpec[n.ID] = n.Spec == spec
	}
	as, err := s.LedgerAllocations(ctx, models.LedgerQuery{From: from, To: to, HeldOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64]bool{}
	for _, a := range as {
		if ofSpec[a.NodeID] {
			out[a.TaskID] = true
		}
	}
	return out
}
