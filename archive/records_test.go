package archive_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"kashi/archive/s3test"
	"kashi/models"
	"kashi/models/modelstest"
)

// TestPoolsApprovalsAndPlansArchived: a pool's settings version (who, why, before and
// after), a decided request (who asked, who decided, how), and the day's task plans (what a
// task asked for and the card-hours it took) are archived under their months, once each.
func TestPoolsApprovalsAndPlansArchived(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		g := s3test.Start(t)
		ctx := context.Background()
		if _, err := s.SavePoolConfig(ctx, "a100", models.PoolConfig{Provider: "sim", Spec: "A100-80G", GPUsPerNode: 8, Flavor: "gpu.a100.8x",
			Image: "kashi-agent", Enabled: true, MinNodes: 1, MaxNodes: 6, Step: 2}, "ada", "first pool", t0); err != nil {
			t.Fatal(err)
		}
		p, _ := s.EnsureProject(ctx, "vision", t0)
		mia, _ := s.CreateUser(ctx, "mia", "pw-mia", models.RoleUser, t0)
		li, _ := s.CreateUser(ctx, "li", "pw-li", models.RoleUser, t0)
		s.SetMember(ctx, p.ID, mia.ID, models.ProjectRoleMember)
		s.SetMember(ctx, p.ID, li.ID, models.ProjectRoleLead)
		node := modelstest.Node("n1").A100s(8).Register(t, s, t0)
		if _, err := s.SetQuota(ctx, "admin", models.Quota{ProjectID: p.ID, Spec: "A100-80G", MaxGPUs: 8, BudgetCardHours: 100,
			StartsAt: t0, EndsAt: t0.Add(90 * 24 * time.Hour), ContractMaxGPUs: 8, ContractBudgetCardHours: 200}, t0); err != nil {
			t.Fatal(err)
		}
		req, err := s.CreateQuotaRequest(ctx, mia, p.ID, "A100-80G", models.RequestBudget, models.QuotaChange{AddCardHours: 50}, "deadline", t0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.DecideQuotaRequest(ctx, li, req.ID, true, "go", t0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		task := modelstest.Task("vision", "train").GPUs(2).Estimate(3, 4*time.Hour).Create(t, s, t0)
		modelstest.Run(t, s, task, node, t0)
		end := t0.Add(90 * time.Minute)
		if err := s.ReportTaskStatus(ctx, node.ID, task.ID, models.TaskReport{State: models.ReportExited, TS: end}, end); err != nil {
			t.Fatal(err)
		}
		a, _ := archiverOf(t, s, g)
		now := t0.Add(24 * time.Hour) // the next day in Shanghai has begun and its hour passed
		pass(t, a, now)
		if n, err := a.Collect(ctx, now.Add(time.Minute)); n != 0 || err != nil {
			t.Errorf("Collect again = %d, %v; want nothing new", n, err)
		}

		var pool struct {
			Pool, By, Note string
			Version        int
			After          struct {
				MaxNodes int `json:"max_nodes"`
			}
		}
		b, _ := object(t, g, "kashi/pools/2026/03/a100-v1-1.json")
		if err := json.Unmarshal(b, &pool); err != nil || pool.Pool != "a100" || pool.By != "ada" || pool.Note != "first pool" || pool.Version != 1 {
			t.Errorf("pool version = %+v, %v", pool, err)
		}
		var dec struct {
			Kind        string `json:"kind"`
			State       string `json:"state"`
			RequestedBy string `json:"requested_by"`
			DecidedBy   string `json:"decided_by"`
			Comment     string `json:"comment"`
			Change      struct {
				AddCardHours float64 `json:"add_card_hours"`
			} `json:"change"`
		}
		b, _ = object(t, g, fmt.Sprintf("kashi/approvals/2026/03/vision-request-%d.json", req.ID))
		if err := json.Unmarshal(b, &dec); err != nil || dec.State != models.RequestApproved || dec.RequestedBy != "mia" ||
			dec.DecidedBy != "li" || dec.Comment != "go" || dec.Change.AddCardHours != 50 {
			t.Errorf("decision = %+v, %v", dec, err)
		}
		var plan struct {
			TaskID         int64   `json:"task_id"`
			Project        string  `json:"project"`
			GPUs           int     `json:"gpus"`
			EstGPUHours    float64 `json:"est_gpu_hours"`
			CardSeconds    int64   `json:"card_seconds"`
			ActualGPUHours float64 `json:"actual_gpu_hours"`
		}
		b, _ = object(t, g, "kashi/plans/2026/03/plans-2026-03-02.jsonl")
		if bytes.Count(b, []byte("\n")) != 1 {
			t.Fatalf("plans of 2026-03-02:\n%s\nwant one task", b)
		}
		if err := json.Unmarshal(b, &plan); err != nil || plan.TaskID != task.ID || plan.Project != "vision" || plan.GPUs != 2 ||
			plan.EstGPUHours != 3 || plan.CardSeconds != 2*90*60 || plan.ActualGPUHours != 3 {
			t.Errorf("plan = %+v, %v; want 2 cards, 3 card-hours estimated and taken", plan, err)
		}
	})
}
