package agent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"kashi/agent/simgpu"
	"kashi/api"
	"kashi/billing"
	"kashi/control"
	"kashi/models"
	"kashi/web/webtest"
)

// stageJSON is a stage of one simulated command of shape, on cards of spec.
func stageJSON(name, spec string, gpus int, shape simgpu.Shape, run time.Duration, exit int, after ...string) string {
	cmd, _ := json.Marshal(simgpu.Command(shape, run, exit))
	a, _ := json.Marshal(after)
	return fmt.Sprintf(`{"name":%q,"after":%s,"spec":%q,"gpus":%d,"command":%s,"est_gpu_hours":%g,"max_attempts":1,"output":"s3://lake/%s"}`,
		name, a, spec, gpus, cmd, run.Hours()*float64(gpus), name)
}

// TestPipelineByStage: through the HTTP API, with real agents on simulated GPUs and the
// server's scheduler pass, a pipeline that cleans on the RTX pool, trains on the A100 pool
// across its 2 nodes and evaluates on the RTX pool runs its stages in order, each submitted
// only once the one before it succeeded, so that a waiting stage holds no card; each stage
// shows its card-hours and cost at its own spec's price. A second pipeline whose training
// fails skips its evaluation, which never holds a card, and the pipeline fails naming the
// stage. On SQLite and Postgres.
func TestPipelineByStage(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		s.Projects("vision")
		ctx := context.Background()
		for spec, rate := range map[string]int64{"A100-80G": 1200, "RTX4090-24G": 300} {
			if err := s.Store.SetPrice(ctx, models.Price{Spec: spec, FromMonth: "2026-03", RateFen: rate}, webtest.T0); err != nil {
				t.Fatal(err)
			}
		}
		f := newFleet(t, s, simNode{"r1", "rtx", simgpu.RTX4090_24G, 1}, simNode{"a1", "a100", simgpu.A100_80G, 1},
			simNode{"a2", "a100", simgpu.A100_80G, 1})
		f.pass = control.SchedulerPass(f.s.Store, f.loop, f.s.Clock, slog.New(slog.NewTextHandler(io.Discard, nil)))
		submit := func(name string, stages ...string) api.Pipeline {
			w := s.Post("/api/v1/pipelines", fmt.Sprintf(`{"project":"vision","name":%q,"stages":[%s,%s,%s]}`, name, stages[0], stages[1], stages[2]))
			if w.Code != 201 {
				t.Fatalf("POST /api/v1/pipelines = %d %s", w.Code, w.Body)
			}
			return webtest.Decode[api.Pipeline](t, w)
		}
		show := func(id int64) (api.Pipeline, map[string]api.Stage) {
			p := webtest.Decode[api.Pipeline](t, s.Get(fmt.Sprintf("/api/v1/pipelines/%d", id)))
			return p, stagesOf(p)
		}
		// Every tick: a stage that waits has no task, and the only cards held are the
		// submitted stages' tasks'.
		holdsNothingWaiting := func(p api.Pipeline) {
			t.Helper()
			open, err := s.Store.OpenAllocations(ctx)
			if err != nil {
				t.Fatal(err)
			}
			running := map[int64]bool{}
			for _, st := range p.Stages {
				if st.State == api.StageWaiting || st.State == api.StageSkipped {
					if st.Task != nil || st.Cards != 0 {
						t.Fatalf("at %s stage %s %s holds task %v, %d cards", s.Clock().Format(time.TimeOnly), st.Name, st.State, st.Task, st.Cards)
					}
				}
				if st.State == api.StageSubmitted {
					running[*st.Task] = true
				}
			}
			for _, a := range open {
				if !running[a.TaskID] {
					t.Fatalf("at %s task %d holds a card, not a running stage's", s.Clock().Format(time.TimeOnly), a.TaskID)
				}
			}
		}

		p := submit("nightly", stageJSON("clean", "RTX4090-24G", 1, simgpu.Eval, 20*time.Minute, 0),
			stageJSON("train", "A100-80G", 2, simgpu.Train, time.Hour, 0, "clean"),
			stageJSON("eval", "RTX4090-24G", 1, simgpu.Eval, 20*time.Minute, 0, "train"))
		for range 130 {
			f.tick()
			if p, _ = show(p.ID); p.State != api.PipelineRunning {
				break
			}
			holdsNothingWaiting(p)
		}
		p, st := show(p.ID)
		if p.State != api.PipelineSucceeded {
			t.Fatalf("pipeline %s %q, stages %+v; want succeeded", p.State, p.Reason, p.Stages)
		}
		clean, train, eval := f.task(*st["clean"].Task), f.task(*st["train"].Task), f.task(*st["eval"].Task)
		if train.StartedAt.Before(*clean.EndedAt) || eval.StartedAt.Before(*train.EndedAt) {
			t.Errorf("order: clean ended %s, train started %s and ended %s, eval started %s", clean.EndedAt, train.StartedAt, train.EndedAt, eval.StartedAt)
		}
		if nodes := train.Attempts[0].Nodes; len(nodes) != 2 || clean.Attempts[0].Nodes[0] != "r1" || eval.Attempts[0].Nodes[0] != "r1" {
			t.Errorf("clean ran on %v, train on %v, eval on %v; want r1, a1 and a2, r1", clean.Attempts[0].Nodes, nodes, eval.Attempts[0].Nodes)
		}
		// Each stage is priced at its own spec: train's 2 cards for about an hour at 12 yuan.
		for name, rate := range map[string]float64{"clean": 300, "train": 1200, "eval": 300} {
			got := st[name]
			if want := got.CardHours * rate; got.CardHours <= 0 || float64(got.CostFen) < want-1 || float64(got.CostFen) > want+1 {
				t.Errorf("stage %s: %.3f card-hours cost %d fen, want %.0f", name, got.CardHours, got.CostFen, want)
			}
		}
		if tr := st["train"].CardHours; tr < 2 || tr > 2.2 || p.CostFen != st["clean"].CostFen+st["train"].CostFen+st["eval"].CostFen {
			t.Errorf("train %.2f card-hours, pipeline %d fen; want about 2, the sum of its stages", tr, p.CostFen)
		}

		// The bill carries each stage's cost, from its tasks' lines, beside the same card-hours
		// all on A100 (the highest-priced spec the pipeline used): cleaning and evaluation on
		// RTX saved the difference.
		b := webtest.Decode[billing.Bill](t, s.Get("/api/v1/bills/vision/2026-03"))
		if len(b.Pipelines) != 1 || b.Pipelines[0].Pipeline != "nightly" || b.Pipelines[0].TopSpec != "A100-80G" || b.Pipelines[0].TopRateFen != 1200 {
			t.Fatalf("bill's pipelines = %+v, want nightly's, top spec A100-80G at 1200", b.Pipelines)
		}
		bp, lineFen := b.Pipelines[0], map[int64]int64{}
		for _, l := range b.Lines {
			lineFen[l.TaskID] += l.AmountFen
		}
		var saving int64
		for i, want := range []struct{ stage, spec string }{{"clean", "RTX4090-24G"}, {"train", "A100-80G"}, {"eval", "RTX4090-24G"}} {
			if i >= len(bp.Stages) {
				t.Fatalf("bill's stages = %+v, want clean, train, eval", bp.Stages)
			}
			got := bp.Stages[i]
			onTop := billing.Amount(got.NominalS, 1200)
			if got.Stage != want.stage || got.Spec != want.spec || got.AmountFen != lineFen[*st[want.stage].Task] || got.TopSpecFen != onTop {
				t.Errorf("bill's stage %d = %+v; want %s on %s costing its task's lines, %d fen, and %d fen on A100",
					i, got, want.stage, want.spec, lineFen[*st[want.stage].Task], onTop)
			}
			saving += got.SavingFen
		}
		if bp.SavingFen != saving || saving <= 0 || bp.AmountFen != lineFen[*st["clean"].Task]+lineFen[*st["train"].Task]+lineFen[*st["eval"].Task] {
			t.Errorf("bill's pipeline = %+v; want its stages' saving (%d fen, above 0) and its tasks' lines", bp, saving)
		}

		// Training fails: evaluation is skipped and never holds a card.
		p = submit("broken", stageJSON("clean", "RTX4090-24G", 1, simgpu.Eval, 10*time.Minute, 0),
			stageJSON("train", "A100-80G", 2, simgpu.Train, 10*time.Minute, 1, "clean"),
			stageJSON("eval", "RTX4090-24G", 1, simgpu.Eval, 10*time.Minute, 0, "train"))
		for range 40 {
			f.tick()
			if p, _ = show(p.ID); p.State != api.PipelineRunning {
				break
			}
			holdsNothingWaiting(p)
		}
		p, st = show(p.ID)
		if p.State != api.PipelineFailed || p.Reason != "stage train" || st["train"].State != api.StageFailed ||
			st["eval"].State != api.StageSkipped || st["eval"].Reason != "parent train" || st["eval"].Task != nil || st["eval"].CardHours != 0 {
			t.Fatalf("pipeline %s %q, stages %+v; want failed at train, eval skipped without a task", p.State, p.Reason, p.Stages)
		}
	})
}

// stagesOf are a pipeline's stages by name.
func stagesOf(p api.Pipeline) map[string]api.Stage {
	out := map[string]api.Stage{}
	for _, st := range p.Stages {
		out[st.Name] = st
	}
	return out
}
