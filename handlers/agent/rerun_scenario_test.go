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

// submit posts a checkpointing training task of run every 20 minutes, of attempts.
func (f *fleet) submit(name string, run time.Duration, attempts int) int64 {
	cmd, _ := json.Marshal(simgpu.CheckpointCommand(simgpu.Train, run, 0, 20*time.Minute))
	w := f.s.Post("/api/v1/tasks", fmt.Sprintf(`{"project":"vision","name":%q,"gpus":1,"spec":"A100-80G","command":%s,
		"data_ready":true,"max_attempts":%d}`, name, cmd, attempts))
	if w.Code != 201 {
		f.t.Fatalf("POST /api/v1/tasks = %d %s", w.Code, w.Body)
	}
	return webtest.Decode[api.Task](f.t, w).ID
}

// TestRerunFromCheckpoint: through the HTTP API, with real agents on simulated GPUs and the
// real scheduler, a training task whose node is cut off after its checkpoint at 40 minutes
// is queued again once the node is given up, resumes on another node from the checkpoint
// (its next checkpoint is the one after 40 minutes, and it ends some 80 minutes after it
// restarted, not 2 hours), and its bill files the 10 minutes lost since the checkpoint as
// rerun, with their cost; a task whose node is cut off on each of its 2 attempts ends failed,
// saying it has no attempt left. On SQLite and Postgres.
func TestRerunFromCheckpoint(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		s.Projects("vision")
		if err := s.Store.SetPrice(context.Background(), models.Price{Spec: "A100-80G", FromMonth: "2026-03", RateFen: 1200}, webtest.T0); err != nil {
			t.Fatal(err)
		}
		f := newFleet(t, s, oneA100("n1"), oneA100("n2"), oneA100("n3"))
		start := s.Clock()
		pretrain := f.submit("pretrain", 2*time.Hour, 2)
		first := f.start(pretrain, 1, 5)
		for s.Clock().Before(start.Add(50 * time.Minute)) {
			f.tick()
		}
		f.until("the checkpoint at 40 minutes is reported", func() bool { return f.task(pretrain).LastCheckpoint == "sim-ckpt:40m0s" })
		cutOff := s.Clock()
		f.kill(first)

		// Given up after 10 minutes of silence, the node's task runs again elsewhere.
		second := f.start(pretrain, 2, 15)
		if second == first {
			t.Fatalf("the rerun runs on the lost node %s", first)
		}
		restarted := *f.task(pretrain).StartedAt
		f.tickUntil(pretrain, "past its first checkpoint since", 25, func(t api.TaskDetail) bool {
			return t.LastCheckpoint == "sim-ckpt:1h0m0s"
		})
		done := f.tickUntil(pretrain, "finished", 70, func(t api.TaskDetail) bool { return t.State == api.StateSucceeded })
		// Its exit is reported a tick or a few after it ran its 80 minutes: the clock moves on
		// while the node reports; a run from the start would take 2 hours.
		if ran := done.EndedAt.Sub(restarted); ran < 80*time.Minute || ran > 90*time.Minute {
			t.Errorf("the rerun ran %s, want the 80 minutes left after the checkpoint", ran)
		}
		lost := done.Attempts[0]
		if len(done.Attempts) != 2 || lost.Ending != models.EndLost || lost.Nodes[0] != first || lost.Checkpoint != "sim-ckpt:40m0s" ||
			lost.CheckpointAt == nil || !lost.EndedAt.Equal(cutOff) || lost.LostS != int64(cutOff.Sub(*lost.CheckpointAt)/time.Second) ||
			lost.LostS < 9*60 || done.Attempts[1].Nodes[0] != second || done.Attempts[1].Ending != models.EndFinished {
			t.Errorf("attempts = %+v; want one lost on %s at %s since its checkpoint at 40m, one finished on %s", done.Attempts, first, cutOff, second)
		}

		// A task cut off on both its attempts ends failed, with that reason.
		eval := f.submit("eval", time.Hour, 2)
		for attempt := 1; attempt <= 2; attempt++ {
			on := f.start(eval, attempt, 15)
			for range 15 {
				f.tick()
			}
			f.kill(on)
		}
		failed := f.tickUntil(eval, "failed", 15, func(t api.TaskDetail) bool { return t.State == api.StateFailed })
		if !strings.HasSuffix(failed.Reason, "; no attempt left (2 of 2)") || len(failed.Attempts) != 2 || failed.Attempts[1].Ending != models.EndLost {
			t.Errorf("the task cut off twice: %q, attempts %+v; want failed, lost, no attempt left", failed.Reason, failed.Attempts)
		}
		evalLost := failed.Attempts[0]
		if evalLost.CheckpointAt != nil || evalLost.LostS != int64(evalLost.EndedAt.Sub(*evalLost.StartedAt)/time.Second) || evalLost.LostS < 15*60 {
			t.Errorf("eval's first attempt = %+v; want all of its 15 minutes or more lost, without a checkpoint", evalLost)
		}

		// The bill files each lost attempt's seconds since its checkpoint (all 15 minutes of
		// eval's first, which made none) as rerun, and what they cost.
		b := webtest.Decode[billing.Bill](t, s.Get("/api/v1/bills/vision/2026-03"))
		want := map[int64]int64{pretrain: lost.LostS, eval: evalLost.LostS}
		for _, l := range b.Lines {
			if l.Rerun != want[l.TaskID] || l.Breakdown.Nominal() != l.NominalS || l.WastedS < l.Rerun {
				t.Errorf("bill line of task %d: %d s rerun of %d, wasted %d; want %d", l.TaskID, l.Rerun, l.NominalS, l.WastedS, want[l.TaskID])
			}
		}
		if b.Held.Rerun != want[pretrain]+want[eval] || b.RerunFen != billing.Amount(want[pretrain], 1200)+billing.Amount(want[eval], 1200) {
			t.Errorf("bill: %d s rerun costing %d fen; want %d s", b.Held.Rerun, b.RerunFen, want[pretrain]+want[eval])
		}
		if csv := s.Get("/api/v1/bills/vision/2026-03?format=csv").Body.String(); !strings.Contains(csv, "重跑 rerun,vision,2026-03") {
			t.Errorf("the bill's CSV has no rerun row:\n%s", csv)
		}
	})
}
