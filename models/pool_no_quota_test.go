package models_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestNoQuotaRules: a spec's rule is the strictest of its pools' (a refusal before any
// limit, the smaller limit before the larger), and a pool saved before the setting allows.
func TestNoQuotaRules(t *testing.T) {
	pool := func(name, spec, policy string, max int) models.ConfiguredPool {
		return models.ConfiguredPool{Pool: models.Pool{Name: name, Spec: spec},
			Config: models.PoolConfig{NoQuota: policy, NoQuotaMaxGPUs: max}}
	}
	got := models.NoQuotaRules([]models.ConfiguredPool{
		pool("a100-old", "A100-80G", "", 0),
		pool("a100-gz", "A100-80G", models.NoQuotaLimit, 8),
		pool("a100-sh", "A100-80G", models.NoQuotaLimit, 4),
		pool("h800", "H800-80G", models.NoQuotaLimit, 2),
		pool("h800-b", "H800-80G", models.NoQuotaRefused, 0),
		pool("h800-c", "H800-80G", models.NoQuotaAllowed, 0),
		pool("rtx", "RTX4090-24G", "", 0),
	})
	want := map[string]models.NoQuotaRule{
		"A100-80G":    {Policy: models.NoQuotaLimit, MaxGPUs: 4, Pool: "a100-sh"},
		"H800-80G":    {Policy: models.NoQuotaRefused, Pool: "h800-b"},
		"RTX4090-24G": {Policy: models.NoQuotaAllowed},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NoQuotaRules(...) mismatch (-want +got):\n%s", diff)
	}
}

// TestSubmitWithoutQuota: a task is refused at submit (and by its dry run's validation) when
// every spec it accepts is one its project has no quota on whose pool refuses projects
// without one (422 naming spec or specs) or lets them hold fewer cards than it asks
// (naming gpus); a quota of the spec or of all specs, or one open spec, lets it in.
func TestSubmitWithoutQuota(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
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
		for _, p := range []string{"vision", "nlp", "speech", "cv"} {
			if _, err := s.EnsureProject(ctx, p, t0); err != nil {
				t.Fatal(err)
			}
		}
		quota := func(project, spec string) {
			p, _ := s.ProjectByName(ctx, project)
			if _, err := s.SetQuota(ctx, "admin", models.Quota{ProjectID: p.ID, Spec: spec, MaxGPUs: 4, BudgetCardHours: 100,
				StartsAt: t0.AddDate(0, -1, 0), EndsAt: t0.AddDate(0, 1, 0)}, t0); err != nil {
				t.Fatal(err)
			}
		}
		quota("nlp", "A100-80G")
		quota("speech", "")
		tests := map[string]struct {
			task  *modelstest.TaskB
			specs []string
			field string // "" for accepted
		}{
			"no quota, a refused spec":            {task: modelstest.Task("vision", "t").Spec("A100-80G"), field: "spec"},
			"no quota, within the limit":          {task: modelstest.Task("vision", "t").Spec("H800-80G").GPUs(2)},
			"no quota, past the limit":            {task: modelstest.Task("vision", "t").Spec("H800-80G").GPUs(3), field: "gpus"},
			"no quota, any spec, one open":        {task: modelstest.Task("vision", "t").GPUs(2)},
			"no quota, any spec, none open":       {task: modelstest.Task("vision", "t").GPUs(3), field: "spec"},
			"no quota, specs, one open":           {task: modelstest.Task("vision", "t").GPUs(1), specs: []string{"A100-80G", "H800-80G"}},
			"no quota, specs, all refused":        {task: modelstest.Task("vision", "t"), specs: []string{"A100-80G"}, field: "specs"},
			"a quota of the refused spec":         {task: modelstest.Task("nlp", "t").Spec("A100-80G").GPUs(4)},
			"a quota of another spec, refused":    {task: modelstest.Task("nlp", "t").Spec("H800-80G").GPUs(3), field: "gpus"},
			"a quota of all specs covers each":    {task: modelstest.Task("speech", "t").Spec("A100-80G")},
			"a quota of all specs, past no limit": {task: modelstest.Task("speech", "t").Spec("H800-80G").GPUs(8)},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				nt := tc.task.New()
				nt.Specs = tc.specs
				vErr := s.ValidateTask(ctx, nt, models.DefaultTaskLimits)
				_, _, cErr := s.CreateTask(ctx, nt, models.DefaultTaskLimits, t0)
				for _, err := range []error{vErr, cErr} {
					var fe *models.FieldError
					switch {
					case tc.field == "" && err != nil:
						t.Errorf("submit = %v, want it accepted", err)
					case tc.field != "" && (!errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(fe.Msg, "no quota")):
						t.Errorf("submit = %v, want a FieldError on %s saying the project has no quota", err, tc.field)
					}
				}
			})
		}
		// The refusal names the project, the spec and the pool.
		_, _, err := s.CreateTask(ctx, modelstest.Task("cv", "t").Spec("A100-80G").New(), models.DefaultTaskLimits, t0)
		if want := `spec: project "cv" has no quota on A100-80G, and pool "a100" refuses projects without one`; err == nil || err.Error() != want {
			t.Errorf("submit of cv on A100 = %v, want %q", err, want)
		}
	})
}

// TestPoolNoQuotaStoredAsDefault: a pool saved naming the default ("allowed") stores the
// setting as a pool saved before it did (""), so saving it again adds no version.
func TestPoolNoQuotaStoredAsDefault(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		cfg := models.PoolConfig{Provider: "static", Spec: "A100-80G", GPUsPerNode: 8, MaxNodes: 1}
		first, err := s.SavePoolConfig(ctx, "a100", cfg, "admin", "", t0)
		if err != nil {
			t.Fatal(err)
		}
		cfg.NoQuota = models.NoQuotaAllowed
		again, err := s.SavePoolConfig(ctx, "a100", cfg, "admin", "", t0)
		if err != nil {
			t.Fatal(err)
		}
		if again.Version != first.Version || again.Config.NoQuota != "" {
			t.Errorf("saved with no_quota %q: version %d (was %d), stored %q; want the same version, stored \"\"",
				cfg.NoQuota, again.Version, first.Version, again.Config.NoQuota)
		}
	})
}
