package demo

import (
	"context"
	"testing"
	"time"

	"kashi/billing"
	"kashi/models"
	"kashi/models/modelstest"
)

// TestFillHistory: a fresh demo's past month is issued, from the replayed task stream: every
// project has an issued bill, the bills are not all zero, idle holders were reclaimed, and the
// last full week's report has card time of every class.
func TestFillHistory(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 4, 0, 30, 0, 0, time.UTC) // 08:30 in Shanghai, the demo's start
	s := modelstest.SQLite(t, models.Options{})
	if _, _, err := Seed(ctx, s, now); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	stats, err := FillHistory(ctx, s, now, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("FillHistory: %+v in %s", stats, time.Since(start).Round(time.Millisecond))
	if stats.Month != "2026-02" || stats.Bills != len(Projects) || stats.Tasks < 1000 {
		t.Fatalf("FillHistory = %+v, want February issued for %d projects from ≥ 1000 tasks", stats, len(Projects))
	}
	issued, err := s.IssuedBills(ctx, "2026-02")
	if err != nil || len(issued) != len(Projects) {
		t.Fatalf("IssuedBills(2026-02) = %d, %v; want %d", len(issued), err, len(Projects))
	}
	var total int64
	for _, ib := range issued {
		b, err := billing.Frozen(ib)
		if err != nil {
			t.Fatal(err)
		}
		total += b.TotalFen
		if len(b.Lines) == 0 {
			t.Errorf("the issued bill of %s has no lines", b.Project)
		}
	}
	if total <= 0 {
		t.Errorf("February's bills total %d fen, want more than 0", total)
	}
	reclaimed, _ := s.Tasks(ctx, models.TaskFilter{State: models.TaskReclaimed, Limit: 1})
	if len(reclaimed) == 0 {
		t.Errorf("no task of the past was reclaimed for idleness")
	}
	r, err := billing.WeekReport(ctx, s, "2026-W09", nil, now)
	if err != nil {
		t.Fatal(err)
	}
	if r.Total.NominalS == 0 || r.Total.EffectiveS == 0 || len(r.TopIdle) == 0 || len(r.Projects) != len(Projects) {
		t.Errorf("week 9's report: total %+v, %d idle tasks, %d projects; want card time, idle tasks and every project",
			r.Total, len(r.TopIdle), len(r.Projects))
	}
}
