package pools_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/web/webtest"
)

// ticked is the values of the checked boxes named name in sel.
func ticked(sel *goquery.Selection, name string) []string {
	var out []string
	sel.Find(`input[type=checkbox][name=` + name + `]`).Each(func(_ int, in *goquery.Selection) {
		if _, ok := in.Attr("checked"); ok {
			out = append(out, in.AttrOr("value", ""))
		}
	})
	return out
}

// offered is the values of every box named name in sel.
func offered(sel *goquery.Selection, name string) []string {
	var out []string
	sel.Find(`input[type=checkbox][name=` + name + `]`).Each(func(_ int, in *goquery.Selection) {
		out = append(out, in.AttrOr("value", ""))
	})
	return out
}

// TestQueueFormSeveralPlaces: the submit form offers every spec with cards and every
// region of a pool as tick boxes, fills them from a template, and stores what is ticked:
// one spec as the task's spec, several as its specs, the regions as its regions, the
// template's data region kept.
func TestQueueFormSeveralPlaces(t *testing.T) {
	f := webtest.PlacesFixture(t)
	w := f.S.Post(fmt.Sprintf("/api/v1/projects/%d/templates", f.Vision), `{"name": "anywhere", "gpus": 1, "command": ["x"],
		"specs": ["A100-80G", "H800-80G"], "regions": ["cn-east", "cn-west"], "data_check": {"path": "/data/d", "region": "cn-west"}}`, webtest.Bearer(f.Lead)...)
	if w.Code != http.StatusCreated {
		t.Fatalf("create = %d %s", w.Code, w.Body)
	}
	tpl := webtest.Decode[webtest.TemplateOut](t, w)
	form := webtest.DocOf(t, f.S.Get(fmt.Sprintf("/queue?template=%d", tpl.ID), webtest.Bearer(f.Member)...).Result()).Find(`[data-testid=task-form]`)
	got := [][]string{offered(form, "specs"), offered(form, "regions"), ticked(form, "specs"), ticked(form, "regions")}
	want := [][]string{{"A100-80G", "H800-80G"}, {"cn-east", "cn-west"}, {"A100-80G", "H800-80G"}, {"cn-east", "cn-west"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("form from the template: offered and ticked specs, regions (-want +got):\n%s", diff)
	}

	post := func(specs, regions []string) *http.Response {
		v := url.Values{"project": {"vision"}, "name": {"anywhere"}, "gpus": {"1"}, "queue": {"long"}, "priority": {"normal"},
			"command": {"x"}, "data_check": {"/data/d"}, "template": {fmt.Sprint(tpl.ID)}, "specs": specs, "regions": regions}
		return f.S.Form("/queue/tasks", v, webtest.Bearer(f.Member)...)
	}
	if r := post([]string{"A100-80G", "H800-80G"}, []string{"cn-east", "cn-west"}); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("submit two specs and regions = %d, want 303", r.StatusCode)
	}
	if r := post([]string{"H800-80G"}, nil); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("submit one spec, any region = %d, want 303", r.StatusCode)
	}
	var asks []string
	webtest.DocOf(t, f.S.Get("/queue", append(webtest.Bearer(f.Member), "Accept-Language", "en")...).Result()).Find(`[data-testid=queue-gpus]`).Each(
		func(_ int, c *goquery.Selection) { asks = append(asks, strings.TrimSpace(c.Text())) })
	if diff := cmp.Diff([]string{"1 × A100-80G / H800-80G", "1 × H800-80G"}, asks); diff != "" {
		t.Errorf("the queue's cards column (-want +got):\n%s", diff)
	}
	tasks, _ := f.S.Store.Tasks(context.Background(), models.TaskFilter{Project: "vision"})
	var places []any
	for _, tk := range tasks {
		places = append(places, []any{tk.Spec, tk.SpecList(), tk.RegionList(), tk.DataRegion()})
	}
	slices.Reverse(places) // newest first
	wantPlaces := []any{
		[]any{"", []string{"A100-80G", "H800-80G"}, []string{"cn-east", "cn-west"}, "cn-west"},
		[]any{"H800-80G", []string(nil), []string(nil), "cn-west"},
	}
	if diff := cmp.Diff(wantPlaces, places); diff != "" {
		t.Errorf("stored places (-want +got):\n%s", diff)
	}
}

// TestPlaceFormsRefuseAsTheAPI: the submit and template forms refuse what the API refuses
// in a task's specs and regions (a repeat, an unknown spec, too long a region), with the
// problem beside the group in the page's language and nothing stored.
func TestPlaceFormsRefuseAsTheAPI(t *testing.T) {
	f := webtest.PlacesFixture(t)
	long := strings.Repeat("r", 101)
	cases := map[string]struct {
		specs, regions []string
		field          string
		en, zh         string
	}{
		"a spec twice":      {specs: []string{"A100-80G", "A100-80G"}, field: "specs", en: "twice", zh: "两次"},
		"an unknown spec":   {specs: []string{"A100-80G", "B200"}, field: "specs", en: "no pool has", zh: "没有资源池"},
		"one unknown spec":  {specs: []string{"B200"}, field: "specs", en: "no pool has", zh: "没有资源池"},
		"too long a region": {regions: []string{long}, field: "regions", en: "100", zh: "100"},
	}
	list := fmt.Sprintf("/projects/%d/templates", f.Vision)
	for name, tc := range cases {
		for _, lang := range []string{"en", "zh-CN"} {
			want := tc.en
			if lang == "zh-CN" {
				want = tc.zh
			}
			task := url.Values{"project": {"vision"}, "name": {"x"}, "gpus": {"1"}, "queue": {"long"}, "priority": {"normal"},
				"command": {"x"}, "data_ready": {"on"}, "specs": tc.specs, "regions": tc.regions}
			tpl := url.Values{"name": {"t"}, "gpus": {"1"}, "queue": {"long"}, "priority": {"normal"}, "command": {"x"},
				"specs": tc.specs, "regions": tc.regions}
			for form, r := range map[string]*http.Response{
				"submit":   f.S.Form("/queue/tasks", task, append(webtest.Bearer(f.Lead), "Accept-Language", lang)...),
				"template": f.S.Form(list, tpl, append(webtest.Bearer(f.Lead), "Accept-Language", lang)...),
			} {
				doc := webtest.DocOf(t, r)
				slot := strings.TrimSpace(doc.Find(`[data-testid=field-error][data-field=` + tc.field + `]`).Text())
				if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(slot, want) {
					t.Errorf("%s, %s form in %s = %d, %s problem %q; want 422 saying %q", name, form, lang, r.StatusCode, tc.field, slot, want)
				}
				if doc.Find(`fieldset[data-testid=choices-`+tc.field+`][aria-invalid=true]`).Length() != 1 {
					t.Errorf("%s, %s form in %s: the %s group is not marked invalid", name, form, lang, tc.field)
				}
			}
		}
	}
	tasks, _ := f.S.Store.Tasks(context.Background(), models.TaskFilter{Project: "vision"})
	rows, _ := f.S.Store.Templates(context.Background(), f.Vision)
	if len(tasks) != 0 || len(rows) != 0 {
		t.Errorf("refused forms stored %d tasks and %d templates, want none", len(tasks), len(rows))
	}
}

// TestTemplateFormSeveralPlaces: the template form stores the specs and regions ticked,
// shows them ticked when the template is edited, and a change of them is a new version
// that names the fields.
func TestTemplateFormSeveralPlaces(t *testing.T) {
	f := webtest.PlacesFixture(t)
	list := fmt.Sprintf("/projects/%d/templates", f.Vision)
	v := url.Values{"name": {"both"}, "gpus": {"1"}, "queue": {"long"}, "priority": {"normal"}, "command": {"x"},
		"specs": {"A100-80G", "H800-80G"}, "regions": {"cn-west"}}
	r := f.S.Form(list, v, webtest.Bearer(f.Lead)...)
	m := webtest.TemplateLocation.FindStringSubmatch(r.Header.Get("Location"))
	if r.StatusCode != http.StatusSeeOther || m == nil {
		t.Fatalf("template form = %d, want 303 to the template", r.StatusCode)
	}
	page := "/templates/" + m[1]
	doc := webtest.DocOf(t, f.S.Get(page, webtest.Bearer(f.Lead)...).Result())
	edit := doc.Find(`[data-testid=template-edit]`)
	if diff := cmp.Diff([][]string{{"A100-80G", "H800-80G"}, {"cn-west"}}, [][]string{ticked(edit, "specs"), ticked(edit, "regions")}); diff != "" {
		t.Errorf("edit form ticks (-want +got):\n%s", diff)
	}
	if got := doc.Find(`[data-testid=template-regions]`).Text(); got != "cn-west" {
		t.Errorf("template regions shown = %q, want cn-west", got)
	}
	v["specs"], v["regions"] = []string{"H800-80G"}, nil
	if r := f.S.Form(page, v, webtest.Bearer(f.Lead)...); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("edit = %d, want 303", r.StatusCode)
	}
	var id int64
	fmt.Sscan(m[1], &id)
	tpl, err := f.S.Store.TemplateByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	b := tpl.Fields()
	if b.Spec != "H800-80G" || len(b.Specs) != 0 || len(b.Regions) != 0 || tpl.Version != 2 {
		t.Errorf("template after the edit: version %d, spec %q, specs %v, regions %v; want version 2 on H800-80G alone in any region",
			tpl.Version, b.Spec, b.Specs, b.Regions)
	}
	doc = webtest.DocOf(t, f.S.Get(page, webtest.Bearer(f.Lead)...).Result())
	var changed []string
	doc.Find(`[data-testid=version-row][data-version="2"] [data-testid=change]`).Each(func(_ int, c *goquery.Selection) {
		changed = append(changed, c.AttrOr("data-field", ""))
	})
	if diff := cmp.Diff([]string{"regions", "spec", "specs"}, changed); diff != "" {
		t.Errorf("version 2 changed (-want +got):\n%s", diff)
	}
}
