package projects_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"kashi/models"
	"kashi/web/webtest"
)

// TestProjectPageNoQuotaSpecs: each project's card says, for every spec of the fleet it has
// no quota on, what it may use of it by its pools' rule, in both languages: any number of
// cards (the default, said plainly), none, or at most a number with the cards it holds.
func TestProjectPageNoQuotaSpecs(t *testing.T) {
	s := webtest.NewServer(t)
	ctx := context.Background()
	s.Projects("vision", "nlp")
	rtx := models.SpecOf("NVIDIA GeForce RTX 4090", 24564)
	s.Register(webtest.Node("a1").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 8))
	h := s.Register(webtest.Node("h1").InPool("h800").Cards(webtest.H800Name, webtest.H800MiB, 8))
	s.Register(webtest.Node("r1").InPool("rtx").Cards("NVIDIA GeForce RTX 4090", 24564, 4))
	for name, cfg := range map[string]models.PoolConfig{
		"a100": {Provider: "static", Spec: "A100-80G", GPUsPerNode: 8, MaxNodes: 1, NoQuota: models.NoQuotaRefused},
		"h800": {Provider: "static", Spec: "H800-80G", GPUsPerNode: 8, MaxNodes: 1, NoQuota: models.NoQuotaLimit, NoQuotaMaxGPUs: 2},
	} {
		if _, err := s.Store.SavePoolConfig(ctx, name, cfg, "tester", "", webtest.T0.Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	vision, _ := s.Store.ProjectByName(ctx, "vision")
	if _, err := s.Store.SetQuota(ctx, "tester", models.Quota{ProjectID: vision.ID, Spec: "A100-80G", MaxGPUs: 8, BudgetCardHours: 100,
		StartsAt: webtest.T0.AddDate(0, -1, 0), EndsAt: webtest.T0.AddDate(0, 1, 0)}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	tk := s.Create(webtest.Task("probe").Of("nlp").Spec("H800-80G").Ready(), webtest.T0.Add(-time.Hour))
	s.Place(tk, webtest.T0.Add(-time.Hour), h.UUIDs[0])

	want := map[string]map[string]map[string]string{ // language → project → spec → text
		"en": {
			"nlp": {
				"A100-80G": `A100-80G: no quota, and pool a100 refuses projects without one: not usable`,
				"H800-80G": `H800-80G: no quota; pool h800 lets it hold at most 2 GPUs at once, 1 in use`,
				rtx:        rtx + `: no quota, so any number of cards may be used (0 in use): nothing limits this project on it`,
			},
			"vision": {
				"H800-80G": `H800-80G: no quota; pool h800 lets it hold at most 2 GPUs at once, 0 in use`,
				rtx:        rtx + `: no quota, so any number of cards may be used (0 in use): nothing limits this project on it`,
			},
		},
		"zh-CN": {
			"nlp": {
				"A100-80G": `A100-80G：无配额，资源池 a100 不接受无配额的项目：不可使用`,
				"H800-80G": `H800-80G：无配额，资源池 h800 允许同时最多 2 张卡，在用 1`,
				rtx:        rtx + `：无配额，卡数不限（在用 0）：本项目在此卡型上不受任何限制`,
			},
		},
	}
	for lang, projects := range want {
		doc := webtest.Parse(t, s.Get("/projects", "Accept-Language", lang).Body.String())
		for project, specs := range projects {
			card := doc.Find(`[data-testid=project-card][data-project=` + project + `]`)
			got := map[string]string{}
			card.Find(`[data-testid=no-quota-spec]`).Each(func(_ int, e *goquery.Selection) {
				got[e.AttrOr("data-spec", "")] = strings.Join(strings.Fields(e.Text()), " ")
			})
			for spec, text := range specs {
				if got[spec] != text {
					t.Errorf("%s /projects, %s, %s: %q, want %q", lang, project, spec, got[spec], text)
				}
			}
			if len(got) != len(specs) {
				t.Errorf("%s /projects, %s: specs without a quota %v, want %d", lang, project, got, len(specs))
			}
		}
	}
}
