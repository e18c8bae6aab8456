package models_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestSubmitsTogetherAsAlone: submits written together — as one group of the committer, and
// from many callers at once through CreateTask — answer each caller as the same submits one
// after another do, and leave the same tasks and events: a submit its checks refuse (no quota
// on a refused spec, past a pool's limit for projects without one, an unknown or archived
// project, a bad field) fails alone, and two submits of one Idempotency-Key in one group
// (whose insert fails together) are written again one by one: one task, the second caller
// told it exists. Random mixes, on SQLite and Postgres.
func TestSubmitsTogetherAsAlone(t *testing.T) {
	run := func(t *testing.T, open func(t *testing.T) *models.Store) {
		for seed := range uint64(3) {
			t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
				nts := submitMix(rand.New(rand.NewPCG(seed, 37)), 48)
				alone, together, crowd := open(t), open(t), open(t)
				ctx := context.Background()
				want := make([]string, len(nts))
				for i, nt := range nts {
					tk, created, err := alone.CreateTask(ctx, nt, models.DefaultTaskLimits, t0)
					want[i] = submitAnswer(tk, created, err)
				}
				tasks, created, errs := models.CommitSubmitsTogether(together, nts, t0)
				got := make([]string, len(nts))
				for i := range nts {
					got[i] = submitAnswer(tasks[i], created[i], errs[i])
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("answers to one group (-alone +together):\n%s", diff)
				}
				crowdGot := make([]string, len(nts))
				var wg sync.WaitGroup
				start := make(chan struct{})
				for i, nt := range nts {
					wg.Go(func() {
						<-start
						tk, created, err := crowd.CreateTask(ctx, nt, models.DefaultTaskLimits, t0)
						crowdGot[i] = submitAnswer(tk, created, err)
					})
				}
				close(start)
				wg.Wait()
				// Which of two callers of one key comes first is the race's; the answers
				// as a whole are the same.
				if diff := cmp.Diff(sorted(want), sorted(crowdGot)); diff != "" {
					t.Errorf("answers to callers at once (-alone +at once):\n%s", diff)
				}
				end := storedTasks(t, alone)
				for name, s := range map[string]*models.Store{"one group": together, "at once": crowd} {
					if diff := cmp.Diff(end, storedTasks(t, s)); diff != "" {
						t.Errorf("tasks stored by %s (-alone +%s):\n%s", name, name, diff)
					}
				}
			})
		}
	}
	t.Run("sqlite", func(t *testing.T) {
		run(t, func(t *testing.T) *models.Store { return submitFixture(t, modelstest.SQLite(t, models.Options{})) })
	})
	if os.Getenv(modelstest.PGEnv) != "" {
		t.Run("postgres", func(t *testing.T) {
			run(t, func(t *testing.T) *models.Store { return submitFixture(t, modelstest.Postgres(t, models.Options{})) })
		})
	}
}

// submitFixture gives s two pools, one refusing projects without a quota and one letting
// them hold 2 cards, and projects with a quota of one spec (nlp), of all specs (speech), of
// none (vision), and one archived.
func submitFixture(t *testing.T, s *models.Store) *models.Store {
	ctx := context.Background()
	modelstest.Node("a1").Pool("a100").A100s(8).Register(t, s, t0)
	modelstest.Node("h1").Pool("h800").Cards("NVIDIA H800", 81559, 8, func(i int) string { return "h1-g" + string(rune('0'+i)) }).Register(t, s, t0)
	for name, cfg := range map[string]models.PoolConfig{
		"a100": {Provider: "static", Spec: "A100-80G", GPUsPerNode: 8, MaxNodes: 1, NoQuota: models.NoQuotaRefused},
		"h800": {Provider: "static", Spec: "H800-80G", GPUsPerNode: 8, MaxNodes: 1, NoQuota: models.NoQuotaLimit, NoQuotaMaxGPUs: 2},
	} {
		if _, err := s.SavePoolConfig(ctx, name, cfg, "admin", "", t0); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"vision", "nlp", "speech", "old"} {
		p, err := s.EnsureProject(ctx, name, t0)
		if err != nil {
			t.Fatal(err)
		}
		q := models.Quota{ProjectID: p.ID, MaxGPUs: 4, BudgetCardHours: 100, StartsAt: t0.AddDate(0, -1, 0), EndsAt: t0.AddDate(0, 1, 0)}
		switch name {
		case "nlp":
			q.Spec = "A100-80G"
		case "old":
			if err := s.SetProjectArchived(ctx, "admin", p.ID, true, t0); err != nil {
				t.Fatal(err)
			}
			continue
		case "vision":
			continue
		}
		if _, err := s.SetQuota(ctx, "admin", q, t0); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// submitMix is n random submits: accepted ones and ones each check refuses, some sharing
// an Idempotency-Key with an equal submit.
func submitMix(r *rand.Rand, n int) []models.NewTask {
	kinds := []func(i int) *modelstest.TaskB{
		func(i int) *modelstest.TaskB { return modelstest.Task("nlp", "t").Spec("A100-80G").GPUs(1 + i%4) },
		func(i int) *modelstest.TaskB { return modelstest.Task("speech", "t").GPUs(1 + i%8) },
		func(i int) *modelstest.TaskB { return modelstest.Task("vision", "t").Spec("H800-80G").GPUs(1 + i%2) },
		func(i int) *modelstest.TaskB { return modelstest.Task("vision", "t").Spec("A100-80G") },         // no quota, refused spec
		func(i int) *modelstest.TaskB { return modelstest.Task("vision", "t").Spec("H800-80G").GPUs(3) }, // past the limit
		func(i int) *modelstest.TaskB { return modelstest.Task("nobody", "t") },
		func(i int) *modelstest.TaskB { return modelstest.Task("old", "t") },
		func(i int) *modelstest.TaskB { return modelstest.Task("speech", "t").GPUs(0) },
		func(i int) *modelstest.TaskB { return modelstest.Task("speech", "t").Service("llama", 9000+i, 0) },
	}
	out := make([]models.NewTask, n)
	for i := range out {
		k := r.IntN(len(kinds))
		out[i] = kinds[k](i).New()
		out[i].Name = fmt.Sprintf("t%02d", i)
		if k == 0 && r.IntN(3) == 0 { // the same submit twice, under one key
			out[i].IdempotencyKey, out[i].IdempotencyScope = fmt.Sprint("key-", i), "u1"
			if j := r.IntN(i + 1); j < i {
				out[j] = out[i]
			}
		}
	}
	return out
}

// submitAnswer is what a caller of CreateTask was told, without the ids the order of
// writing picks.
func submitAnswer(t models.Task, created bool, err error) string {
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("%s created=%t gpus=%d spec=%q state=%s", t.Name, created, t.GPUs, t.Spec, t.State)
}

// storedTasks is every task s holds with its project and its events, in name order.
func storedTasks(t *testing.T, s *models.Store) []string {
	ctx := context.Background()
	rows, err := s.ActiveTasks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		evs, err := s.TaskEvents(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		var key string
		if r.IdempotencyKey != nil {
			key = *r.IdempotencyKey
		}
		out = append(out, fmt.Sprintf("%s/%s gpus=%d spec=%q kind=%q key=%q state=%s events=%d %s",
			r.Project, r.Name, r.GPUs, r.Spec, r.Kind, key, r.State, len(evs), evs[0].Reason))
	}
	return sorted(out)
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}
