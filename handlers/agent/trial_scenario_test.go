package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"kashi/agent/simgpu"
	"kashi/api"
	"kashi/billing"
	"kashi/models"
	"kashi/web/webtest"
)

// TestTrialOnTwoSpecs: through the HTTP API, with real agents on simulated A100 and RTX 4090
// nodes and the real scheduler, a trial of a training task at 1 and 2 cards on both specs
// for 20 minutes runs its four runs, each stopped at its bound; it reports each run's
// throughput from the task's KASHI_OUTPUT lines (the A100 about 400 samples a second a card,
// the RTX 4090 about 180), the A100's scaling from 1 to 2 cards (about 90 %), the cost per
// million samples at each spec's price, peak memory and busy cards; it proposes the RTX 4090,
// cheaper per sample, at the 4 cards asked, with the card-hours of the full run's 100
// million samples; "run at full size" submits that once (409 after); and the bill files the
// runs' card-hours as trial, on their own lines. On SQLite and Postgres.
func TestTrialOnTwoSpecs(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		s.Projects("vision")
		ctx := context.Background()
		for spec, rate := range map[string]int64{"A100-80G": 1200, "RTX4090-24G": 400} {
			if err := s.Store.SetPrice(ctx, models.Price{Spec: spec, FromMonth: "2026-03", RateFen: rate}, webtest.T0); err != nil {
				t.Fatal(err)
			}
		}
		f := newFleet(t, s, simNode{"a1", "a100", simgpu.A100_80G, 4}, simNode{"r1", "rtx", simgpu.RTX4090_24G, 4})
		cmd, _ := json.Marshal(simgpu.Command(simgpu.Finetune, 2*time.Hour, 0))
		w := s.Post("/api/v1/trials", fmt.Sprintf(`{"task":{"project":"vision","name":"pretrain","command":%s,"data_ready":true},
			"specs":["A100-80G","RTX4090-24G"],"sizes":[1,2],"bound_s":1200,"work_units":100000000,"full_gpus":4}`, cmd))
		if w.Code != 201 {
			t.Fatalf("POST /api/v1/trials = %d %s", w.Code, w.Body)
		}
		tr := webtest.Decode[api.Trial](t, w)
		if len(tr.Runs) != 4 || tr.Done || tr.Proposal != nil {
			t.Fatalf("new trial = %+v; want 4 runs, no proposal yet", tr)
		}
		for i := 0; i < 40 && !tr.Done; i++ {
			f.tick()
			// A run placed starts, and a run stopped at its bound exits, at that instant: its
			// node reports it before the clock moves on, as a real node does within seconds.
			f.until("placed runs start and stopped runs exit", func() bool {
				rs, err := s.Store.TrialRuns(ctx, tr.ID)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range rs {
					if r.State == models.TaskStarting || r.StopState != "" && r.EndedAt == nil {
						return false
					}
				}
				return true
			})
			tr = webtest.Decode[api.Trial](t, s.Get("/api/v1/trials/"+webtest.IDStr(tr.ID)))
		}
		// The cards' readings, as the rollup loop sums them up.
		if err := s.Store.RollUp(ctx, s.Clock().Add(10*time.Minute), 24*time.Hour); err != nil {
			t.Fatal(err)
		}
		tr = webtest.Decode[api.Trial](t, s.Get("/api/v1/trials/"+webtest.IDStr(tr.ID)))
		if !tr.Done {
			t.Fatalf("trial after 40 minutes: %+v; want every run ended", tr.Runs)
		}
		runs := map[string]api.TrialRun{}
		for _, r := range tr.Runs {
			runs[fmt.Sprintf("%d×%s", r.GPUs, r.Spec)] = r
			if r.State != api.StateTimedOut || r.RuntimeS < 20*60 || r.RuntimeS > 23*60 || r.OutputUnit != "samples" ||
				r.CostPerMFen == nil || r.PeakMemMiB == 0 || r.Busy == nil || !*r.Busy {
				t.Errorf("run %+v; want timed out at its 20 minutes, with samples, a cost per million, peak memory, busy cards", r)
			}
		}
		near := func(got, want int64) bool { return got > want*95/100 && got < want*105/100 }
		a1, a2, r1 := runs["1×A100-80G"], runs["2×A100-80G"], runs["1×RTX4090-24G"]
		if !near(a1.UnitsPerHour, 400*3600) || !near(r1.UnitsPerHour, 180*3600) || a2.EfficiencyPct < 85 || a2.EfficiencyPct > 95 {
			t.Errorf("throughput: 1 A100 %d/h, 2 A100 %d/h (%d %%), 1 RTX %d/h; want about 1,440,000, 90 %% and 648,000",
				a1.UnitsPerHour, a2.UnitsPerHour, a2.EfficiencyPct, r1.UnitsPerHour)
		}
		// 1,200 fen an hour for 1.44M samples, 400 for 0.648M: about 833 and 617 fen per million.
		if !near(*a1.CostPerMFen, 833) || !near(*r1.CostPerMFen, 617) {
			t.Errorf("cost per million: A100 %d fen, RTX %d fen; want about 833 and 617", *a1.CostPerMFen, *r1.CostPerMFen)
		}
		p := tr.Proposal
		if p == nil || p.Spec != "RTX4090-24G" || p.GPUs != 4 || !p.Projected || !p.Scales || p.CardS == 0 || p.CostFen == 0 {
			t.Fatalf("proposal = %+v; want 4 RTX4090-24G, projected, with the full run's card-hours and cost", p)
		}

		w = s.Post("/api/v1/trials/"+webtest.IDStr(tr.ID)+"/full", "")
		if w.Code != 201 {
			t.Fatalf("POST full = %d %s", w.Code, w.Body)
		}
		full := webtest.Decode[api.Task](t, w)
		if full.Spec != "RTX4090-24G" || full.GPUs != 4 || full.Name != "pretrain" || full.EstGPUHours < float64(p.CardS)/3600 {
			t.Errorf("full run = %+v; want pretrain on 4 RTX4090-24G estimated at %d card-seconds", full, p.CardS)
		}
		if w := s.Post("/api/v1/trials/"+webtest.IDStr(tr.ID)+"/full", ""); w.Code != 409 {
			t.Errorf("second full run = %d %s; want 409", w.Code, w.Body)
		}
		if got := webtest.Decode[api.Trial](t, s.Get("/api/v1/trials/"+webtest.IDStr(tr.ID))); got.FullTaskID == nil || *got.FullTaskID != full.ID {
			t.Errorf("trial's full task = %v; want %d", got.FullTaskID, full.ID)
		}

		b := webtest.Decode[billing.Bill](t, s.Get("/api/v1/bills/vision/2026-03"))
		var trialS int64
		for _, l := range b.Lines {
			if l.Trial != l.NominalS || l.WastedS != 0 || l.EffectiveS != 0 {
				t.Errorf("bill line of task %d: %d s trial of %d, wasted %d; want all trial, none wasted", l.TaskID, l.Trial, l.NominalS, l.WastedS)
			}
			trialS += l.Trial
		}
		if len(b.Lines) != 4 || b.Held.Trial != trialS || b.TrialFen == 0 || b.TrialFen != b.TotalFen {
			t.Errorf("bill: %d lines, %d s trial costing %d fen of %d; want 4 trial lines, all of the total", len(b.Lines), b.Held.Trial, b.TrialFen, b.TotalFen)
		}
		if csv := s.Get("/api/v1/bills/vision/2026-03?format=csv").Body.String(); !strings.Contains(csv, "试跑 trial,vision,2026-03") {
			t.Errorf("the bill's CSV has no trial row:\n%s", csv)
		}
	})
}
