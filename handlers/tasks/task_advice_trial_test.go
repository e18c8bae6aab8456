package tasks_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"kashi/models"
	"kashi/web/webtest"
)

// TestTaskAdviceFromTrial: pretrain ran 2 hours on an A100 that it kept busy with 30 GiB at
// its peak; its readings alone say it was sized right (36 GiB with headroom fits no RTX
// 4090), and so does its advice while a trial of it runs. Once the trial (A100 and RTX 4090
// at 1 and 2 cards) has ended, the advice is the trial's: one RTX 4090, at 62 % of the cost
// per sample and 222 % of the time, naming and linking the trial, in both languages.
func TestTaskAdviceFromTrial(t *testing.T) {
	s, base, alice, _, nodes := trialWorld(t)
	ctx := t.Context()
	start := webtest.T0.Add(-5 * time.Hour)
	tk, err := s.Store.TaskByID(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	s.Place(tk.Task, start, webtest.UUIDOf("a", 0))
	for m := time.Duration(0); m < 2*time.Hour; m += time.Minute {
		s.SetNow(start.Add(m))
		s.PostSamples(nodes["a"].Token, webtest.Sample(webtest.UUIDOf("a", 0), start.Add(m), 90, 30*1024))
	}
	end := start.Add(2 * time.Hour)
	if err := s.Store.ReportTaskStatus(ctx, nodes["a"].ID, base, models.TaskReport{State: models.ReportExited, TS: end}, end); err != nil {
		t.Fatal(err)
	}
	s.SetNow(webtest.T0)
	if err := s.Store.RollUp(ctx, webtest.T0, 24*time.Hour); err != nil {
		t.Fatal(err)
	}
	id := strconv.FormatInt(base, 10)
	type advice struct {
		Kind    string `json:"kind"`
		Spec    string `json:"spec"`
		GPUs    int    `json:"gpus"`
		CostPct int    `json:"cost_pct"`
		TimePct int    `json:"time_pct"`
		TrialID int64  `json:"trial_id"`
	}
	adviceOf := func() *advice {
		w := s.Get("/api/v1/tasks/"+id, webtest.Bearer(alice)...)
		if w.Code != http.StatusOK {
			t.Fatalf("GET task = %d %s", w.Code, w.Body)
		}
		return webtest.Decode[struct {
			Advice *advice `json:"advice"`
		}](t, w).Advice
	}
	readings := advice{Kind: "right", Spec: "A100-80G", GPUs: 1, CostPct: 100}
	if a := adviceOf(); a == nil || *a != readings {
		t.Fatalf("advice from readings = %+v, want %+v", a, readings)
	}
	w := s.Post("/api/v1/trials", `{"from_task": `+id+`, "specs": ["A100-80G", "RTX4090-24G"], "sizes": [1, 2], "bound_s": 1200}`,
		webtest.Bearer(alice)...)
	if w.Code != http.StatusCreated {
		t.Fatalf("POST /api/v1/trials = %d %s", w.Code, w.Body)
	}
	trialID := webtest.Decode[struct {
		ID int64 `json:"id"`
	}](t, w).ID
	runs, err := s.Store.TrialRuns(ctx, trialID)
	if err != nil || len(runs) != 4 {
		t.Fatalf("TrialRuns = %d, %v", len(runs), err)
	}
	at := webtest.T0.Add(-2 * time.Hour)
	used := map[string]int{}
	for i, r := range runs {
		node := map[string]string{"A100-80G": "a", "RTX4090-24G": "r"}[r.Spec]
		var uuids []string
		for range r.GPUs {
			uuids = append(uuids, webtest.UUIDOf(node, used[node]))
			used[node]++
		}
		s.Place(r.Task, at, uuids...)
		if i == len(runs)-1 {
			if a := adviceOf(); a == nil || *a != readings {
				t.Errorf("advice while the trial runs = %+v, want the readings' %+v", a, readings)
			}
		}
		perS := map[string]float64{"A100-80G": 400, "RTX4090-24G": 180}[r.Spec] * float64(r.GPUs) * map[int]float64{1: 1, 2: 0.9}[r.GPUs]
		done := at.Add(20 * time.Minute)
		rep := models.TaskReport{State: models.ReportExited, TS: done, ExitCode: 143, OutputUnits: int64(perS * 1200), OutputUnit: "samples"}
		if err := s.Store.ReportTaskStatus(ctx, nodes[node].ID, r.ID, rep, done); err != nil {
			t.Fatal(err)
		}
	}
	want := advice{Kind: "smaller", Spec: "RTX4090-24G", GPUs: 1, CostPct: 62, TimePct: 222, TrialID: trialID}
	if a := adviceOf(); a == nil || *a != want {
		t.Fatalf("advice after the trial = %+v, want %+v", a, want)
	}
	for lang, says := range map[string][]string{
		"en":    {"Next time ask for 1 × RTX4090-24G, at 62 % of the cost.", "From a trial's figures", "per unit of output", "The same output takes 222 % of the time."},
		"zh-CN": {"下次可申请 1 × RTX4090-24G，成本为本次的 62%。", "依据试跑实测", "按单位产出计", "同样的产出用时为本次的 222%。"},
	} {
		doc := webtest.Parse(t, s.Get("/tasks/"+id, append(webtest.Bearer(alice), "Cookie", "kashi_lang="+lang)...).Body.String())
		text := strings.Join(strings.Fields(doc.Find(`[data-testid=task-advice]`).Text()), " ")
		for _, w := range says {
			if !strings.Contains(text, w) {
				t.Errorf("%s: advice = %q, want it to say %q", lang, text, w)
			}
		}
		if href := doc.Find(`[data-testid=advice-trial] a`).AttrOr("href", ""); href != "/trials/"+strconv.FormatInt(trialID, 10) {
			t.Errorf("%s: advice links %q, want the trial", lang, href)
		}
	}
}
