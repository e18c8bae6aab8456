package models_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

var billT0 = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

func fieldName(err error) string {
	var fe *models.FieldError
	if errors.As(err, &fe) {
		return fe.Field
	}
	return ""
}

func TestSetPriceRejects(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		tests := map[string]struct {
			p     models.Price
			field string
		}{
			"negative rate":     {models.Price{Spec: "A100-80G", FromMonth: "2026-03", RateFen: -1}, "rate_fen"},
			"negative overflow": {models.Price{Spec: "A100-80G", FromMonth: "2026-03", OverflowRateFen: -5}, "overflow_rate_fen"},
			"no such month":     {models.Price{Spec: "A100-80G", FromMonth: "2026-13"}, "from_month"},
			"no spec":           {models.Price{FromMonth: "2026-03"}, "spec"},
			"unknown project":   {models.Price{ProjectID: 42, Spec: "A100-80G", FromMonth: "2026-03"}, "project_id"},
		}
		for name, tc := range tests {
			if err := s.SetPrice(ctx, tc.p, billT0); fieldName(err) != tc.field {
				t.Errorf("%s: SetPrice = %v, want a FieldError on %q", name, err, tc.field)
			}
		}
		if ps, err := s.Prices(ctx, "2026-12"); err != nil || len(ps) != 0 {
			t.Errorf("after refusals Prices = %v, %v; want none", ps, err)
		}
	})
}

func TestPricesInForce(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		p, _ := s.EnsureProject(ctx, "vision", billT0)
		for _, pr := range []models.Price{
			{Spec: "A100-80G", FromMonth: "2026-01", RateFen: 1000},
			{Spec: "A100-80G", FromMonth: "2026-04", RateFen: 2000},
			{ProjectID: p.ID, Spec: "A100-80G", FromMonth: "2026-03", RateFen: 900},
			{Spec: "A100-80G", FromMonth: "2026-04", RateFen: 2100, OverflowRateFen: 3000}, // replaces the row before
		} {
			if err := s.SetPrice(ctx, pr, billT0); err != nil {
				t.Fatalf("SetPrice(%+v) = %v", pr, err)
			}
		}
		rates := func(month string) map[int64]int64 {
			ps, err := s.Prices(ctx, month)
			if err != nil {
				t.Fatalf("Prices(%s) = %v", month, err)
			}
			out := map[int64]int64{}
			for _, r := range ps {
				out[r.ProjectID] = r.RateFen
			}
			return out
		}
		want := map[string]map[int64]int64{
			"2025-12": {},
			"2026-02": {0: 1000},
			"2026-03": {0: 1000, p.ID: 900},
			"2026-05": {0: 2100, p.ID: 900},
		}
		for month, w := range want {
			got := rates(month)
			if len(got) != len(w) {
				t.Errorf("Prices(%s) = %v, want %v", month, got, w)
			}
			for id, r := range w {
				if got[id] != r {
					t.Errorf("Prices(%s)[%d] = %d, want %d", month, id, got[id], r)
				}
			}
		}
		if _, err := s.Prices(ctx, "2026-13"); fieldName(err) != "month" {
			t.Errorf("Prices(2026-13) = %v, want a FieldError", err)
		}
	})
}

func TestSetBillingPlanRejects(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		p, _ := s.EnsureProject(ctx, "vision", billT0)
		reserved := func(f func(*models.BillingPlan)) models.BillingPlan {
			bp := models.BillingPlan{ProjectID: p.ID, FromMonth: "2026-03", Mode: models.BillReserved, PackageSpec: "A100-80G",
				PackageCards: 8, PackageFeeFen: 1_000_000}
			f(&bp)
			return bp
		}
		tests := map[string]struct {
			plan  models.BillingPlan
			field string
		}{
			"negative package fee": {reserved(func(b *models.BillingPlan) { b.PackageFeeFen = -1 }), "package_fee_fen"},
			"negative cards":       {reserved(func(b *models.BillingPlan) { b.PackageCards = -2 }), "package_cards"},
			"no cards":             {reserved(func(b *models.BillingPlan) { b.PackageCards = 0 }), "package_cards"},
			"no spec":              {reserved(func(b *models.BillingPlan) { b.PackageSpec = "" }), "package_spec"},
			"bad month":            {reserved(func(b *models.BillingPlan) { b.FromMonth = "2026-00" }), "from_month"},
			"unknown project":      {reserved(func(b *models.BillingPlan) { b.ProjectID = 999 }), "project_id"},
			"unknown mode":         {reserved(func(b *models.BillingPlan) { b.Mode = "barter" }), "mode"},
			"negative unit price": {models.BillingPlan{ProjectID: p.ID, FromMonth: "2026-03", Mode: models.BillPerTask, UnitPriceFen: -3},
				"unit_price_fen"},
			"size classes not json": {models.BillingPlan{ProjectID: p.ID, FromMonth: "2026-03", Mode: models.BillPerTask, SizeClasses: "S=1"},
				"size_classes"},
			"negative class price": {models.BillingPlan{ProjectID: p.ID, FromMonth: "2026-03", Mode: models.BillPerTask,
				SizeClasses: `[{"name":"S","max_card_hours":1,"price_fen":-1}]`}, "size_classes[0].price_fen"},
			"classes not rising": {models.BillingPlan{ProjectID: p.ID, FromMonth: "2026-03", Mode: models.BillPerTask,
				SizeClasses: `[{"name":"S","max_card_hours":5,"price_fen":1},{"name":"M","max_card_hours":5,"price_fen":2}]`}, "size_classes[1].max_card_hours"},
		}
		for name, tc := range tests {
			if err := s.SetBillingPlan(ctx, tc.plan, billT0); fieldName(err) != tc.field {
				t.Errorf("%s: SetBillingPlan = %v, want a FieldError on %q", name, err, tc.field)
			}
		}
		if ps, err := s.BillingPlans(ctx, "2030-01"); err != nil || len(ps) != 0 {
			t.Errorf("after refusals BillingPlans = %v, %v; want none", ps, err)
		}
		if err := s.SetBillingPlan(ctx, reserved(func(*models.BillingPlan) {}), billT0); err != nil {
			t.Fatalf("SetBillingPlan = %v", err)
		}
		pt := models.BillingPlan{ProjectID: p.ID, FromMonth: "2026-05", Mode: models.BillPerTask, UnitPriceFen: 3}
		if err := s.SetBillingPlan(ctx, pt, billT0); err != nil {
			t.Fatalf("SetBillingPlan = %v", err)
		}
		for month, mode := range map[string]string{"2026-04": models.BillReserved, "2026-05": models.BillPerTask} {
			ps, err := s.BillingPlans(ctx, month)
			if err != nil || len(ps) != 1 || ps[0].Mode != mode {
				t.Errorf("BillingPlans(%s) = %+v, %v; want one %s plan", month, ps, err, mode)
			}
		}
	})
}

func TestBillingTimeZone(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		if bs, err := s.BillingSettings(ctx); err != nil || bs.TimeZone != "Asia/Shanghai" {
			t.Errorf("default settings = %+v, %v", bs, err)
		}
		if err := s.SetBillingSettings(ctx, "admin", models.BillingSettings{TimeZone: "Mars/Olympus"}, billT0); fieldName(err) != "time_zone" {
			t.Errorf("SetBillingSettings(unknown zone) = %v", err)
		}
		for _, z := range []string{"UTC", "America/New_York"} {
			if err := s.SetBillingSettings(ctx, "admin", models.BillingSettings{TimeZone: z}, billT0); err != nil {
				t.Fatal(err)
			}
			if bs, _ := s.BillingSettings(ctx); bs.TimeZone != z {
				t.Errorf("zone = %q, want %q", bs.TimeZone, z)
			}
		}
	})
}

// frozenBill is a minimal issued bill with a matching checksum.
func frozenBill(projectID int64, month string, from, to time.Time) models.IssuedBill {
	body := `{"month":"` + month + `"}`
	sum := sha256.Sum256([]byte(body))
	return models.IssuedBill{ProjectID: projectID, Month: month, TimeZone: "UTC", PeriodStart: from, PeriodEnd: to,
		TotalFen: 100, Body: body, SHA256: hex.EncodeToString(sum[:]), IssuedBy: "finance"}
}

func TestIssueBillStore(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		p, _ := s.EnsureProject(ctx, "vision", billT0)
		from, to := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
		after := to.Add(time.Hour)
		ok := frozenBill(p.ID, "2026-03", from, to)

		tampered := ok
		tampered.Body += " "
		notOver := ok
		badMonth := frozenBill(p.ID, "2026-13", from, to)
		for name, tc := range map[string]struct {
			b     models.IssuedBill
			now   time.Time
			field string
		}{
			"checksum":       {tampered, after, "body"},
			"month not over": {notOver, to.Add(-time.Second), "month"},
			"no such month":  {badMonth, after, "month"},
		} {
			if _, err := s.IssueBill(ctx, tc.b, tc.now); fieldName(err) != tc.field {
				t.Errorf("%s: IssueBill = %v, want a FieldError on %q", name, err, tc.field)
			}
		}
		unknown := frozenBill(999, "2026-03", from, to)
		if _, err := s.IssueBill(ctx, unknown, after); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("IssueBill(unknown project) = %v, want ErrNotFound", err)
		}

		// An adjustment added after the bill was computed: the bill is stale.
		adj, err := s.AddAdjustment(ctx, models.Adjustment{ProjectID: p.ID, Month: "2026-03", AmountFen: 5, Reason: "fix", CreatedBy: "f"}, billT0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.IssueBill(ctx, ok, after); !errors.Is(err, models.ErrConflict) {
			t.Errorf("IssueBill without the month's adjustment = %v, want ErrConflict", err)
		}
		ok.AdjustmentIDs = []int64{adj.ID}
		got, err := s.IssueBill(ctx, ok, after)
		if err != nil || got.ID == 0 || !got.IssuedAt.Equal(models.UTC(after)) {
			t.Fatalf("IssueBill = %+v, %v", got, err)
		}
		if _, err := s.IssueBill(ctx, ok, after); !errors.Is(err, models.ErrConflict) {
			t.Errorf("IssueBill twice = %v, want ErrConflict", err)
		}
		back, err := s.IssuedBillOf(ctx, p.ID, "2026-03")
		if err != nil || back.Body != ok.Body || back.SHA256 != ok.SHA256 || back.TotalFen != 100 {
			t.Errorf("IssuedBillOf = %+v, %v", back, err)
		}
		if all, err := s.IssuedBills(ctx, "2026-03"); err != nil || len(all) != 1 {
			t.Errorf("IssuedBills = %d, %v", len(all), err)
		}
		if _, err := s.IssuedBillOf(ctx, p.ID, "2026-04"); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("IssuedBillOf(unissued) = %v, want ErrNotFound", err)
		}
	})
}

func TestAddAdjustmentRejects(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		p, _ := s.EnsureProject(ctx, "vision", billT0)
		base := models.Adjustment{ProjectID: p.ID, Month: "2026-04", AmountFen: -300, Reason: "refund", CreatedBy: "finance"}
		with := func(f func(*models.Adjustment)) models.Adjustment { a := base; f(&a); return a }
		for name, tc := range map[string]struct {
			a     models.Adjustment
			field string
		}{
			"zero":            {with(func(a *models.Adjustment) { a.AmountFen = 0 }), "amount_fen"},
			"no reason":       {with(func(a *models.Adjustment) { a.Reason = "" }), "reason"},
			"no author":       {with(func(a *models.Adjustment) { a.CreatedBy = "" }), "created_by"},
			"bad month":       {with(func(a *models.Adjustment) { a.Month = "2026-4" }), "month"},
			"corrects later":  {with(func(a *models.Adjustment) { a.CorrectsMonth = "2026-05" }), "corrects_month"},
			"unknown project": {with(func(a *models.Adjustment) { a.ProjectID = 999 }), "project_id"},
		} {
			if _, err := s.AddAdjustment(ctx, tc.a, billT0); fieldName(err) != tc.field {
				t.Errorf("%s: AddAdjustment = %v, want a FieldError on %q", name, err, tc.field)
			}
		}
		if as, err := s.Adjustments(ctx, 0, "2026-04"); err != nil || len(as) != 0 {
			t.Errorf("after refusals Adjustments = %v, %v", as, err)
		}
		a, err := s.AddAdjustment(ctx, with(func(a *models.Adjustment) { a.CorrectsMonth = "2026-03" }), billT0)
		if err != nil || a.ID == 0 {
			t.Fatalf("AddAdjustment = %+v, %v", a, err)
		}
		if as, err := s.Adjustments(ctx, p.ID, "2026-04"); err != nil || len(as) != 1 || as[0].AmountFen != -300 {
			t.Errorf("Adjustments = %+v, %v", as, err)
		}
	})
}

func TestLedgerReads(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		req := models.NodeRegistration{Hostname: "n1", Pool: "a100"}
		for i := 0; i < 2; i++ {
			req.GPUs = append(req.GPUs, models.GPUInfo{UUID: "n1-g" + string(rune('0'+i)), Index: i, Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920})
		}
		n, err := s.RegisterNode(ctx, req, "hash-n1", billT0)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := s.EnsureProject(ctx, "vision", billT0)
		task, _, err := s.CreateTask(ctx, models.NewTask{Project: "vision", Name: "train", Owner: "alice", GPUs: 2,
			Queue: models.QueueLong, Priority: "normal", Command: []string{"x"}, DataReady: true}, models.DefaultTaskLimits, billT0)
		if err != nil {
			t.Fatal(err)
		}
		nodes, _ := s.Nodes(ctx)
		gpus := []int64{nodes[0].GPUs[0].ID, nodes[0].GPUs[1].ID}
		if err := s.PlaceTask(ctx, task.ID, gpus, true, "placed", billT0); err != nil {
			t.Fatal(err)
		}
		var samples []models.Reading
		for m := 0; m < 10; m++ {
			samples = append(samples, models.Reading{UUID: "n1-g0", TS: billT0.Add(time.Duration(m) * time.Minute), UtilPct: 80})
		}
		if _, err := s.IngestSamples(ctx, n.ID, samples, billT0.Add(10*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := s.RollUp(ctx, billT0.Add(time.Hour), 24*time.Hour); err != nil {
			t.Fatal(err)
		}
		q := models.LedgerQuery{From: billT0.Add(-time.Hour), To: billT0.Add(time.Hour)}
		as, err := s.LedgerAllocations(ctx, q)
		if err != nil || len(as) != 2 {
			t.Fatalf("LedgerAllocations = %+v, %v", as, err)
		}
		if a := as[0]; a.Spec != "A100-80G" || a.End != 0 || !a.Overflow || a.ProjectID != p.ID || a.Start != billT0.Unix() {
			t.Errorf("allocation = %+v", a)
		}
		for name, q := range map[string]models.LedgerQuery{
			"before":        {From: billT0.Add(-2 * time.Hour), To: billT0},
			"other project": {From: billT0, To: billT0.Add(time.Hour), ProjectID: p.ID + 1},
		} {
			if as, err := s.LedgerAllocations(ctx, q); err != nil || len(as) != 0 {
				t.Errorf("%s: LedgerAllocations = %d rows, %v; want none", name, len(as), err)
			}
		}
		ts, err := s.LedgerTasks(ctx, []int64{task.ID, task.ID + 100})
		if err != nil || len(ts) != 1 || ts[0].Name != "train" || ts[0].State != models.TaskStarting || ts[0].EndedAt != 0 {
			t.Errorf("LedgerTasks = %+v, %v", ts, err)
		}
		var rs []models.GPURollup
		err = s.LedgerReadings(ctx, gpus, billT0, q.To, func(gpu int64, got []models.GPURollup) error {
			rs = append(rs, got...)
			return nil
		})
		if err != nil || len(rs) != 2 || rs[0].N != 5 || rs[0].NActive != 5 || rs[1].N != 5 {
			t.Errorf("LedgerReadings = %+v, %v; want two 5-minute buckets of 5 active readings", rs, err)
		}
		ln, err := s.LedgerNodes(ctx)
		if err != nil || len(ln) != 1 || len(ln[0].GPUIDs) != 2 || ln[0].Spec != "A100-80G" {
			t.Errorf("LedgerNodes = %+v, %v", ln, err)
		}
	})
}
