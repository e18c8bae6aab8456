package tasks_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/api"
	"kashi/models"
)

// qDryRun is the answer of POST /api/v1/tasks?dry_run=1, as a test reads it.
type qDryRun struct {
	Lane     string     `json:"lane"`
	Position int        `json:"position"`
	Reason   string     `json:"reason"`
	ETAP50   *time.Time `json:"eta_p50"`
	ETAP90   *time.Time `json:"eta_p90"`
	CardS    int64      `json:"card_s"`
	Basis    string     `json:"basis"`
	Cost     []struct {
		Spec      string `json:"spec"`
		Mode      string `json:"mode"`
		Pricing   string `json:"pricing"`
		RateFen   int64  `json:"rate_fen"`
		AmountFen int64  `json:"amount_fen"`
	} `json:"cost"`
	Quota []struct {
		Spec            string `json:"spec"`
		MaxGPUs         int    `json:"max_gpus"`
		BudgetCardHours int64  `json:"budget_card_hours"`
	} `json:"quota"`
	Warnings []string `json:"warnings"`
}

// TestDryRunMatchesQueue dry-runs a task, then submits it: the dry run stored nothing, and
// its place and ETAs are those the queue then shows for the task.
func TestDryRunMatchesQueue(t *testing.T) {
	q := newQEnv(t)
	qFleet(q)
	ctx := context.Background()
	if err := q.store.SetPrice(ctx, models.Price{Spec: "A100-80G", FromMonth: "2026-01", RateFen: 1500, OverflowRateFen: 2500}, qT0); err != nil {
		t.Fatal(err)
	}
	body := `{"project":"vision","name":"finetune","gpus":2,"spec":"A100-80G","est_gpu_hours":3,"max_runtime_s":7200,` +
		`"command":["python","ft.py"],"data_ready":true}`
	before := q.qTaskCount()
	w := q.qRequest(http.MethodPost, "/api/v1/tasks?dry_run=1", "application/json", body)
	if w.Code != http.StatusOK {
		t.Fatalf("dry run = %d, want 200:\n%s", w.Code, w.Body)
	}
	var dry qDryRun
	if err := json.Unmarshal(w.Body.Bytes(), &dry); err != nil {
		t.Fatal(err)
	}
	if n := q.qTaskCount(); n != before {
		t.Errorf("the dry run stored a task: %d tasks, want %d", n, before)
	}
	if dry.ETAP50 == nil || dry.Reason != "no-free-gpus" || dry.CardS != 3*3600 || dry.Basis != "estimate" {
		t.Errorf("dry run = %+v, want a capacity wait with ETAs for 3 card-hours", dry)
	}
	if len(dry.Cost) != 1 || dry.Cost[0].AmountFen != 4500 || dry.Cost[0].Pricing != "card-hour" {
		t.Errorf("dry run cost = %+v, want 3 card-hours at 15 yuan: 4500 fen", dry.Cost)
	}

	w = q.qRequest(http.MethodPost, "/api/v1/tasks", "application/json", body)
	if w.Code != http.StatusCreated {
		t.Fatalf("submit = %d, want 201:\n%s", w.Code, w.Body)
	}
	var created struct{ ID int64 }
	json.Unmarshal(w.Body.Bytes(), &created)
	var queue qQueueJSON
	if err := json.Unmarshal(q.qGet("/api/v1/queue").Body.Bytes(), &queue); err != nil {
		t.Fatal(err)
	}
	type place struct {
		Lane     string
		Position int
		Reason   string
		P50, P90 *time.Time
	}
	var got place
	for _, e := range queue.Tasks {
		if e.ID == created.ID {
			got = place{e.Lane, e.Position, e.Reason, e.ETAP50, e.ETAP90}
		}
	}
	want := place{dry.Lane, dry.Position, dry.Reason, dry.ETAP50, dry.ETAP90}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the queue's entry differs from the dry run (-dry run +queue):\n%s", diff)
	}
}

func TestDryRunQuotaAndInput(t *testing.T) {
	q := newQEnv(t)
	qFleet(q)
	ctx := context.Background()
	p, err := q.store.ProjectByName(ctx, "vision")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.store.SetQuota(ctx, "admin", models.Quota{ProjectID: p.ID, Spec: "H800-80G", MaxGPUs: 2,
		BudgetCardHours: 100, StartsAt: qT0.Add(-time.Hour), EndsAt: qT0.Add(30 * 24 * time.Hour)}, qT0); err != nil {
		t.Fatal(err)
	}
	body := `{"project":"vision","name":"wide","gpus":4,"spec":"H800-80G","est_gpu_hours":8,"command":["x"],"data_ready":true}`
	w := q.qRequest(http.MethodPost, "/api/v1/tasks?dry_run=true", "application/json", body)
	var dry qDryRun
	if err := json.Unmarshal(w.Body.Bytes(), &dry); err != nil || w.Code != http.StatusOK {
		t.Fatalf("dry run = %d %s (%v)", w.Code, w.Body, err)
	}
	if dry.Reason != "quota" || !cmp.Equal(dry.Warnings, []string{"quota"}) || len(dry.Quota) != 1 || dry.Quota[0].MaxGPUs != 2 {
		t.Errorf("dry run = %+v, want a quota wait with the quota's limits", dry)
	}

	for name, tc := range map[string]struct {
		path, body string
		status     int
		field      string
	}{
		"bad flag":      {"/api/v1/tasks?dry_run=maybe", body, http.StatusBadRequest, "dry_run"},
		"no gpus":       {"/api/v1/tasks?dry_run=1", `{"project":"vision","name":"n","gpus":0,"command":["x"]}`, http.StatusUnprocessableEntity, "gpus"},
		"unknown field": {"/api/v1/tasks?dry_run=1", `{"project":"vision","gpu":1}`, http.StatusBadRequest, "gpu"},
	} {
		t.Run(name, func(t *testing.T) {
			n := q.qTaskCount()
			w := q.qRequest(http.MethodPost, tc.path, "application/json", tc.body)
			var e api.Error
			json.Unmarshal(w.Body.Bytes(), &e)
			if w.Code != tc.status || e.Field != tc.field {
				t.Errorf("POST %s = %d %+v, want %d naming %q", tc.path, w.Code, e, tc.status, tc.field)
			}
			if q.qTaskCount() != n {
				t.Errorf("a refused dry run stored a task")
			}
		})
	}
}

// TestQueueFormEstimate: the submit form's inline check shows the dry run (start, cost per
// spec, warnings) in both languages, and stores nothing.
func TestQueueFormEstimate(t *testing.T) {
	q := newQEnv(t)
	qFleet(q)
	if err := q.store.SetPrice(context.Background(), models.Price{Spec: "H800-80G", FromMonth: "2026-01", RateFen: 3000, OverflowRateFen: 4000}, qT0); err != nil {
		t.Fatal(err)
	}
	form := qForm()
	form.Set("data_ready", "on")
	n := q.qTaskCount()
	for lang, want := range map[string][]string{
		"en":    {"If submitted now it would start now", "H800-80G: about ¥105.00 at its estimate"},
		"zh-CN": {"如果现在提交，开始时间：即将开始", "H800-80G：按估计约 ¥105.00"},
	} {
		t.Run(lang, func(t *testing.T) {
			w := q.qPostForm("/queue/tasks/validate", form, "HX-Request", "true", "Accept-Language", lang)
			if w.Code != http.StatusOK {
				t.Fatalf("validate = %d, want 200:\n%s", w.Code, w.Body)
			}
			doc := qDoc(t, w)
			got := []string{doc.Find(`[data-testid="est-start"]`).Text(), doc.Find(`[data-testid="est-cost"]`).Text()}
			for i := range got {
				if !strings.Contains(got[i], want[i]) {
					t.Errorf("estimate %d = %q, want it to contain %q", i, got[i], want[i])
				}
			}
		})
	}
	// A half-filled form without its cards gets no estimate yet.
	doc := qDoc(t, q.qPostForm("/queue/tasks/validate", url.Values{"project": {"vision"}}, "HX-Request", "true"))
	if doc.Find(`[data-testid="form-estimate"]`).Length() != 0 {
		t.Errorf("a form without GPUs got an estimate")
	}
	if q.qTaskCount() != n {
		t.Errorf("the form's check stored a task")
	}
}
