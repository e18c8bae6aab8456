package billing_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"kashi/billing"
	"kashi/models"
	"kashi/models/modelstest"
)

// t0 is a Monday morning in March 2026 (UTC).
var t0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// afterMarch is just after March ends in Asia/Shanghai (2026-03-31T16:00Z).
var afterMarch = time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)

// runTask takes a task through the real store path: submit, place on gpus, run with an
// active reading every minute for the first hour, exit at two hours, roll up.
func runTask(t *testing.T, s *models.Store, project, name string, gpus int, overflow bool) {
	t.Helper()
	runTaskOn(t, s, project, name, 0, gpus, overflow)
}

// runTaskOn is runTask on the node's cards from index first on.
func runTaskOn(t *testing.T, s *models.Store, project, name string, first, gpus int, overflow bool) {
	t.Helper()
	ctx := context.Background()
	nodes, err := s.Nodes(ctx)
	if err != nil || len(nodes) == 0 {
		t.Fatalf("Nodes = %v, %v", nodes, err)
	}
	n := nodes[0]
	task, _, err := s.CreateTask(ctx, models.NewTask{Project: project, Name: name, Owner: "alice", GPUs: gpus,
		Queue: models.QueueLong, Priority: "normal", Command: []string{"train"}, DataReady: true}, models.DefaultTaskLimits, t0)
	if err != nil {
		t.Fatalf("CreateTask = %v", err)
	}
	var ids []int64
	var samples []models.Reading
	for i := first; i < first+gpus; i++ {
		ids = append(ids, n.GPUs[i].ID)
		for m := 0; m < 60; m++ {
			samples = append(samples, models.Reading{UUID: n.GPUs[i].UUID, TS: t0.Add(time.Duration(m) * time.Minute),
				MemoryUsedMiB: 1000, UtilPct: 90, TempC: 50, PowerW: 300})
		}
	}
	if err := s.PlaceTask(ctx, task.ID, ids, overflow, "placed", t0); err != nil {
		t.Fatalf("PlaceTask = %v", err)
	}
	if _, err := s.IngestSamples(ctx, n.ID, samples, t0.Add(time.Hour)); err != nil {
		t.Fatalf("IngestSamples = %v", err)
	}
	end := t0.Add(2 * time.Hour)
	if err := s.ReportTaskStatus(ctx, n.ID, task.ID, models.TaskReport{State: models.ReportExited, TS: end}, end); err != nil {
		t.Fatalf("ReportTaskStatus = %v", err)
	}
	if err := s.RollUp(ctx, t0.Add(3*time.Hour), 30*24*time.Hour); err != nil {
		t.Fatalf("RollUp = %v", err)
	}
}

func setup(t *testing.T, s *models.Store) models.Project {
	t.Helper()
	ctx := context.Background()
	req := models.NodeRegistration{Hostname: "n1", Pool: "a100"}
	for i := 0; i < 4; i++ {
		req.GPUs = append(req.GPUs, models.GPUInfo{UUID: fmt.Sprintf("n1-gpu%d", i), Index: i, Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920})
	}
	if _, err := s.RegisterNode(ctx, req, "hash-n1", t0.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	p, err := s.EnsureProject(ctx, "alpha", t0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetPrice(ctx, models.Price{Spec: "A100-80G", FromMonth: "2026-01", RateFen: 1500, OverflowRateFen: 2500}, t0); err != nil {
		t.Fatal(err)
	}
	return p
}

func fieldOf(err error) string {
	var fe *models.FieldError
	if errors.As(err, &fe) {
		return fe.Field
	}
	return ""
}

func TestIssueThroughStore(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		p := setup(t, s)
		runTask(t, s, "alpha", "train", 2, false)

		// The preview while March runs: 2 GPUs × 2 h, the first hour active.
		b, err := billing.ProjectBill(ctx, s, p.ID, "2026-03", t0.Add(3*time.Hour))
		if err != nil {
			t.Fatalf("ProjectBill = %v", err)
		}
		if b.NominalS != 4*3600 || b.EffectiveS != 2*3600 || b.Held.NoData != 2*3600 || b.TotalFen != 6000 || b.Issued != nil {
			t.Fatalf("preview = %d s nominal, %d effective, %+v, %d fen, issued %v; want 4 h, 2 h, 6000 fen",
				b.NominalS, b.EffectiveS, b.Held, b.TotalFen, b.Issued)
		}

		bad := map[string]struct {
			month string
			now   time.Time
			field string
		}{
			"no such month":  {"2026-13", afterMarch, "month"},
			"future month":   {"2026-05", afterMarch, "month"},
			"month not over": {"2026-03", time.Date(2026, 3, 31, 15, 59, 59, 0, time.UTC), "month"},
		}
		for name, tc := range bad {
			if _, err := billing.Issue(ctx, s, p.ID, tc.month, "finance", tc.now); fieldOf(err) != tc.field {
				t.Errorf("%s: Issue(%s) = %v, want a FieldError on %q", name, tc.month, err, tc.field)
			}
		}
		if _, err := s.IssuedBillOf(ctx, p.ID, "2026-03"); !errors.Is(err, models.ErrNotFound) {
			t.Fatalf("refused issues stored a bill: %v", err)
		}

		issued, err := billing.Issue(ctx, s, p.ID, "2026-03", "finance", afterMarch)
		if err != nil {
			t.Fatalf("Issue = %v", err)
		}
		if issued.Issued == nil || issued.TotalFen != 6000 || issued.Issued.By != "finance" {
			t.Fatalf("issued = %+v", issued.Issued)
		}
		if _, err := billing.Issue(ctx, s, p.ID, "2026-03", "finance", afterMarch.Add(time.Hour)); !errors.Is(err, models.ErrConflict) {
			t.Errorf("Issue twice = %v, want ErrConflict", err)
		}

		// Frozen: a later price change does not touch it, and it downloads the same bytes.
		if err := s.SetPrice(ctx, models.Price{Spec: "A100-80G", FromMonth: "2026-01", RateFen: 9999, OverflowRateFen: 9999}, afterMarch); err != nil {
			t.Fatal(err)
		}
		render := func() (string, string) {
			b, err := billing.ProjectBill(ctx, s, p.ID, "2026-03", afterMarch.Add(48*time.Hour))
			if err != nil {
				t.Fatalf("ProjectBill = %v", err)
			}
			if b.TotalFen != 6000 {
				t.Errorf("issued bill total = %d after a price change, want 6000", b.TotalFen)
			}
			var c, x bytes.Buffer
			if err := billing.WriteCSV(&c, []billing.Bill{b}); err != nil {
				t.Fatal(err)
			}
			if err := billing.WriteXLSX(&x, []billing.Bill{b}, billing.EnglishSheets); err != nil {
				t.Fatal(err)
			}
			return c.String(), x.String()
		}
		c1, x1 := render()
		c2, x2 := render()
		if c1 != c2 || x1 != x2 {
			t.Errorf("re-download differs: csv %v, xlsx %v", c1 == c2, x1 == x2)
		}

		// Corrections go on the next bill, never into the frozen one.
		adj := models.Adjustment{ProjectID: p.ID, Month: "2026-03", AmountFen: -100, Reason: "refund", CreatedBy: "finance"}
		if _, err := s.AddAdjustment(ctx, adj, afterMarch); !errors.Is(err, models.ErrConflict) {
			t.Errorf("AddAdjustment to an issued month = %v, want ErrConflict", err)
		}
		adj.Month, adj.CorrectsMonth = "2026-04", "2026-03"
		if _, err := s.AddAdjustment(ctx, adj, afterMarch); err != nil {
			t.Fatalf("AddAdjustment = %v", err)
		}
		apr, err := billing.ProjectBill(ctx, s, p.ID, "2026-04", afterMarch)
		if err != nil || apr.TotalFen != -100 || len(apr.AdjustmentIDs) != 1 {
			t.Errorf("April bill = %d fen, adjustments %v, %v; want -100", apr.TotalFen, apr.AdjustmentIDs, err)
		}
		month, err := billing.MonthBills(ctx, s, "2026-03", afterMarch.Add(time.Hour))
		if err != nil || len(month.Bills) != 1 || month.Bills[0].Issued == nil || len(month.PoolIdle) != 1 {
			t.Fatalf("MonthBills = %+v, %v; want the frozen bill and one pool", month, err)
		}
		if pi := month.PoolIdle[0]; pi.HeldS != 4*3600 || pi.ProvisionedS != pi.HeldS+pi.IdleS {
			t.Errorf("pool idle = %+v", pi)
		}
	})
}

func TestIssueRefusesMissingPrice(t *testing.T) {
	s := modelstest.SQLite(t, models.Options{})
	ctx := context.Background()
	p := setup(t, s)
	other, err := s.EnsureProject(ctx, "beta", t0)
	if err != nil {
		t.Fatal(err)
	}
	// beta's own price list has H800 only, but the default list has A100: alpha is priced.
	// A project whose spec has no price anywhere is refused.
	if err := s.SetPrice(ctx, models.Price{ProjectID: other.ID, Spec: "H800-80G", FromMonth: "2026-01", RateFen: 1}, t0); err != nil {
		t.Fatal(err)
	}
	runTask(t, s, "alpha", "train", 1, false)
	if err := s.SetPrice(ctx, models.Price{Spec: "A100-80G", FromMonth: "2026-04", RateFen: 1}, t0); err != nil {
		t.Fatal(err)
	}
	fresh := modelstest.SQLite(t, models.Options{})
	req := models.NodeRegistration{Hostname: "n1", Pool: "a100", GPUs: []models.GPUInfo{{UUID: "g0", Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920}}}
	if _, err := fresh.RegisterNode(ctx, req, "h", t0.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	fp, _ := fresh.EnsureProject(ctx, "alpha", t0)
	runTask(t, fresh, "alpha", "train", 1, false)
	if _, err := billing.Issue(ctx, fresh, fp.ID, "2026-03", "finance", afterMarch); fieldOf(err) != "prices" {
		t.Errorf("Issue without a price = %v, want a FieldError on prices", err)
	}
	if _, err := fresh.IssuedBillOf(ctx, fp.ID, "2026-03"); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("a refused issue stored a bill: %v", err)
	}
	// A price of 0 is a price.
	if err := fresh.SetPrice(ctx, models.Price{Spec: "A100-80G", FromMonth: "2026-03"}, t0); err != nil {
		t.Fatal(err)
	}
	if b, err := billing.Issue(ctx, fresh, fp.ID, "2026-03", "finance", afterMarch); err != nil || b.TotalFen != 0 {
		t.Errorf("Issue at a zero price = %d fen, %v", b.TotalFen, err)
	}
	if b, err := billing.Issue(ctx, s, p.ID, "2026-03", "finance", afterMarch); err != nil || b.TotalFen != 3000 {
		t.Errorf("Issue with the default price = %d fen, %v; want 3000", b.TotalFen, err)
	}
	if _, err := billing.Issue(ctx, s, 999, "2026-03", "finance", afterMarch); !errors.Is(err, models.ErrNotFound) {
		t.Errorf("Issue for an unknown project = %v, want ErrNotFound", err)
	}
}

func TestIssueOverflow(t *testing.T) {
	s := modelstest.SQLite(t, models.Options{})
	ctx := context.Background()
	p := setup(t, s)
	runTask(t, s, "alpha", "burst", 1, true)
	b, err := billing.Issue(ctx, s, p.ID, "2026-03", "finance", afterMarch)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Lines) != 1 || b.Lines[0].Pricing != billing.PricingOverflow || b.TotalFen != 5000 {
		t.Errorf("overflow bill = %+v, total %d; want 2 h at 25 yuan", b.Lines, b.TotalFen)
	}
}
