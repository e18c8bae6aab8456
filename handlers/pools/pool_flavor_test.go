package pools_test

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/web/webtest"
)

// TestPoolFlavorChoice: the pool form chooses the flavor among the provider's flavors where
// the pool is, each with its GPU model, count and memory; saving refuses a flavor not offered
// there and one whose GPUs differ from the pool's; when the provider's list cannot be read
// the form says so and takes a typed flavor.
func TestPoolFlavorChoice(t *testing.T) {
	flavors := &webtest.StubFlavors{}
	cfg := webtest.TestCfg()
	cfg.Flavors = flavors
	s := webtest.NewServerOn(t, modelstest.SQLite(t, models.Options{}), cfg)
	pool := models.PoolConfig{Provider: "ctyun", Spec: "A100-80G", GPUsPerNode: 8, Flavor: "pi7.8xlarge.a100",
		Region: "cn-gz1", Zone: "cn-gz1-a", MaxNodes: 2}
	if _, err := s.Store.SavePoolConfig(context.Background(), "gz-a100", pool, "tester", "", webtest.T0); err != nil {
		t.Fatal(err)
	}
	doc := webtest.Parse(t, s.Get("/pools/gz-a100/edit").Body.String())
	sel := doc.Find(`select[name=flavor][data-testid=flavor-select]`)
	var options []string
	sel.Find("option").Each(func(_ int, o *goquery.Selection) { options = append(options, o.Text()) })
	want := []string{"— the provider's default —", "pi7.8xlarge.a100 — 8 × A100, 80 GiB each", "pi7.4xlarge.a100 — 4 × A100, 80 GiB each"}
	if strings.Join(options, "|") != strings.Join(want, "|") {
		t.Errorf("flavor options = %q, want %q", options, want)
	}
	if got := sel.Find("option[selected]").AttrOr("value", ""); got != "pi7.8xlarge.a100" {
		t.Errorf("selected flavor = %q, want the pool's", got)
	}

	values := func(change map[string]string) url.Values {
		v := url.Values{"provider": {"ctyun"}, "spec": {"A100-80G"}, "gpus_per_node": {"8"}, "flavor": {"pi7.8xlarge.a100"},
			"region": {"cn-gz1"}, "zone": {"cn-gz1-a"}, "max_nodes": {"2"}}
		for k, x := range change {
			v.Set(k, x)
		}
		return v
	}
	tests := map[string]struct {
		change map[string]string
		msg    string
	}{
		"not offered in the region": {map[string]string{"region": "cn-sh1"},
			"Flavor (machine type): the provider offers no flavor pi7.8xlarge.a100 in cn-sh1 / cn-gz1-a; choose one of the list."},
		"GPUs differ": {map[string]string{"flavor": "pi7.4xlarge.a100"},
			"Flavor (machine type): pi7.4xlarge.a100 has 4 GPUs, the pool 8 per node; choose another flavor or change GPUs per node."},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			resp := s.Form("/pools/gz-a100", values(tc.change))
			if resp.StatusCode != http.StatusUnprocessableEntity {
				t.Fatalf("POST = %d, want 422", resp.StatusCode)
			}
			doc := webtest.DocOf(t, resp)
			if got := doc.Find(`[data-testid=field-error][data-field=flavor]`).Text(); got != tc.msg {
				t.Errorf("error beside the flavor = %q, want %q", got, tc.msg)
			}
			if got := doc.Find(`select[name=flavor] option[selected]`).AttrOr("value", ""); got != values(tc.change).Get("flavor") {
				t.Errorf("the form shows flavor %q, want what was chosen", got)
			}
		})
	}
	if resp := s.Form("/pools/gz-a100", values(map[string]string{"max_nodes": "3"})); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("POST with an offered flavor = %d, want 303", resp.StatusCode)
	}

	flavors.Err = errors.New("ctyun: /v4/ecs/flavor/list: auth (HTTP 403)")
	doc = webtest.Parse(t, s.Get("/pools/gz-a100/edit").Body.String())
	if doc.Find(`input[type=text][name=flavor]`).Length() != 1 || doc.Find(`select[name=flavor]`).Length() != 0 {
		t.Errorf("with the list failing the flavor is not a text input")
	}
	if got := doc.Find(`[data-testid=flavors-error]`).Text(); !strings.Contains(got, "could not be read (ctyun: /v4/ecs/flavor/list: auth (HTTP 403))") {
		t.Errorf("flavors error = %q", got)
	}
	if resp := s.Form("/pools/gz-a100", values(map[string]string{"flavor": "typed.by.hand"})); resp.StatusCode != http.StatusSeeOther {
		t.Errorf("POST of a typed flavor while the list fails = %d, want 303", resp.StatusCode)
	}
	zh := webtest.Parse(t, s.Get("/pools/gz-a100/edit", "Accept-Language", "zh-CN").Body.String())
	if got := zh.Find(`[data-testid=flavors-error]`).Text(); !strings.HasPrefix(got, "无法读取云厂商的规格列表") {
		t.Errorf("zh flavors error = %q", got)
	}
}
