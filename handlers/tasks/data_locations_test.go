package tasks_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"kashi/api"
	"kashi/models"
	"kashi/web/webtest"
)

// TestTemplateDataLocations: a template says where its data is in each region; the API and
// the template form refuse a bad one naming the field; a task submitted from the template
// carries them (those of the regions it accepts), and the node it is placed on in cn-west
// is told cn-west's location, while a node in a region without one is told none.
func TestTemplateDataLocations(t *testing.T) {
	f := webtest.PlacesFixture(t)
	create := fmt.Sprintf("/api/v1/projects/%d/templates", f.Vision)
	for body, field := range map[string]string{
		`"data_locations": {"cn-east": "relative/path"}`:                      "data_locations.cn-east",
		`"data_locations": {"cn-east": "s3:/no-host"}`:                        "data_locations.cn-east",
		`"data_locations": {"cn-east": "/a b"}`:                               "data_locations.cn-east",
		`"data_locations": {"cn-east": ""}`:                                   "data_locations.cn-east",
		`"regions": ["cn-west"], "data_locations": {"cn-east": "/data/east"}`: "data_locations.cn-east",
		`"data_locations": {"":"/data"}`:                                      "data_locations",
		`"data_locations": {"cn-east": "/` + strings.Repeat("x", 1024) + `"}`: "data_locations.cn-east",
	} {
		w := f.S.Post(create, `{"name": "bad", "gpus": 1, "command": ["x"], `+body+`}`, webtest.Bearer(f.Lead)...)
		if e := webtest.Decode[api.Error](t, w); w.Code != http.StatusUnprocessableEntity || e.Field != field {
			t.Errorf("template with %s = %d %s, want 422 naming %s", body, w.Code, w.Body, field)
		}
	}
	w := f.S.Post(create, `{"name": "shards", "gpus": 1, "command": ["x"], "regions": ["cn-east", "cn-west"],
		"data_locations": {"cn-east": "s3://east-bucket/shards", "cn-west": "s3://west-bucket/shards"}}`, webtest.Bearer(f.Lead)...)
	if w.Code != http.StatusCreated {
		t.Fatalf("create = %d %s", w.Code, w.Body)
	}
	tpl := webtest.Decode[webtest.TemplateOut](t, w)
	form := webtest.DocOf(t, f.S.Get(fmt.Sprintf("/queue?template=%d", tpl.ID), webtest.Bearer(f.Member)...).Result())
	if got := form.Find(`[data-testid=form-data-locations] .mono`).Text(); got != "cn-east=s3://east-bucket/shards\ncn-west=s3://west-bucket/shards\n" {
		t.Errorf("the submit form from the template shows data locations %q, want both regions'", got)
	}

	// The API keeps only the locations of the regions a submit narrows to.
	type taskOut struct {
		ID            int64             `json:"id"`
		State         string            `json:"state"`
		DataLocations map[string]string `json:"data_locations"`
	}
	w = f.S.Post("/api/v1/tasks", fmt.Sprintf(`{"template": %d, "regions": ["cn-west"]}`, tpl.ID), webtest.Bearer(f.Member)...)
	if w.Code != http.StatusCreated {
		t.Fatalf("submit from the template = %d %s", w.Code, w.Body)
	}
	west := webtest.Decode[taskOut](t, w)
	want := taskOut{ID: west.ID, State: models.TaskQueued, DataLocations: map[string]string{"cn-west": "s3://west-bucket/shards"}}
	if diff := cmp.Diff(want, west); diff != "" {
		t.Errorf("task from the template (-want +got):\n%s", diff)
	}
	w = f.S.Post("/api/v1/tasks", fmt.Sprintf(`{"template": %d, "regions": ["cn-east"]}`, tpl.ID), webtest.Bearer(f.Member)...)
	east := webtest.Decode[taskOut](t, w)

	// Placed: the node in cn-west is told its region's location; the task placed in cn-east
	// on the a100 node, whose pool is in cn-east, is told cn-east's.
	a100 := f.S.Register(webtest.Node("e1").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 4))
	h800 := f.S.Register(webtest.Node("w2").InPool("h800").Cards(webtest.H800Name, webtest.H800MiB, 4))
	wt, _ := f.S.Store.TaskByID(context.Background(), west.ID)
	et, _ := f.S.Store.TaskByID(context.Background(), east.ID)
	f.S.Place(wt.Task, webtest.T0, h800.UUIDs[0])
	f.S.Place(et.Task, webtest.T0, a100.UUIDs[0])
	for _, c := range []struct {
		token, region, loc string
	}{{h800.Token, "cn-west", "s3://west-bucket/shards"}, {a100.Token, "cn-east", "s3://east-bucket/shards"}} {
		as := webtest.Decode[api.AssignmentsResponse](t, f.S.Get(api.PathAssignments, webtest.Bearer(c.token)...))
		if len(as.Tasks) != 1 || as.Tasks[0].DataRegion != c.region || as.Tasks[0].DataLocation != c.loc {
			t.Errorf("assignments in %s = %+v, want one told %s", c.region, as.Tasks, c.loc)
		}
	}
}

// TestTemplateFormDataLocations: the template form takes region=location lines, shows them
// back on the template, and refuses a line without '=' or a bad location beside the input.
func TestTemplateFormDataLocations(t *testing.T) {
	f := webtest.PlacesFixture(t)
	list := fmt.Sprintf("/projects/%d/templates", f.Vision)
	v := url.Values{"name": {"data"}, "gpus": {"1"}, "queue": {"long"}, "priority": {"normal"}, "command": {"x"},
		"data_locations": {"cn-west = /data/west/set\n\ncn-east=https://data.example.com/set\n"}}
	for lines, want := range map[string]string{
		"cn-west /data/west/set":                                    "Line 1 is not region=location.",
		"cn-west=/data/a\ncn-west=/data/b":                          "Line 2 sets cn-west again.",
		"cn-west=mnt/west":                                          "must be an absolute path or a URI",
		"cn-west=/data/a\nnowhere=/data/b":                          "",
		"cn-west=/data/a\n" + strings.Repeat("x", 101) + "=/data/b": "100",
	} {
		bad := url.Values{}
		for k, x := range v {
			bad[k] = x
		}
		bad.Set("data_locations", lines)
		bad.Set("name", "probe")
		r := f.S.Form(list, bad, append(webtest.Bearer(f.Lead), "Accept-Language", "en")...)
		if want == "" {
			if r.StatusCode != http.StatusSeeOther {
				t.Errorf("data locations %q = %d, want 303 (any region name is allowed while the template names no regions)", lines, r.StatusCode)
			}
			continue
		}
		got := strings.TrimSpace(webtest.DocOf(t, r).Find(`[data-testid=field-error][data-field=data_locations]`).Text())
		if r.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(got, want) {
			t.Errorf("data locations %q = %d %q, want 422 saying %q", lines, r.StatusCode, got, want)
		}
	}
	zh := url.Values{}
	for k, x := range v {
		zh[k] = x
	}
	for lines, want := range map[string]string{"cn-west=mnt/west": "绝对路径", "cn-east": "第 1 行不是 地域=位置 格式"} {
		zh.Set("data_locations", lines)
		r := f.S.Form(list, zh, append(webtest.Bearer(f.Lead), "Accept-Language", "zh-CN")...)
		if got := webtest.DocOf(t, r).Find(`[data-testid=field-error][data-field=data_locations]`).Text(); !strings.Contains(got, want) {
			t.Errorf("zh-CN data locations %q: problem %q, want it to say %q", lines, got, want)
		}
	}
	r := f.S.Form(list, v, webtest.Bearer(f.Lead)...)
	m := webtest.TemplateLocation.FindStringSubmatch(r.Header.Get("Location"))
	if r.StatusCode != http.StatusSeeOther || m == nil {
		d := webtest.DocOf(t, r)
		t.Fatalf("template form = %d, want 303: %s", r.StatusCode, d.Find(`[data-testid=field-error]`).Text())
	}
	doc := webtest.DocOf(t, f.S.Get("/templates/"+m[1], webtest.Bearer(f.Lead)...).Result())
	const shown = "cn-east=https://data.example.com/set\ncn-west=/data/west/set\n"
	if got := doc.Find(`[data-testid=template-edit] textarea[name=data_locations]`).Text(); got != shown {
		t.Errorf("edit form data locations = %q, want %q", got, shown)
	}
	if got := doc.Find(`[data-testid=template-data-locations]`).Text(); got != shown {
		t.Errorf("template shows data locations %q, want %q", got, shown)
	}
}

// TestResubmitKeepsTheTemplate: Resubmit of a task submitted from a template gives a form
// bound to the template, showing its data locations, and submitting that form as it stands
// stores a task of the template that carries them.
func TestResubmitKeepsTheTemplate(t *testing.T) {
	f := webtest.PlacesFixture(t)
	w := f.S.Post(fmt.Sprintf("/api/v1/projects/%d/templates", f.Vision), `{"name": "shards", "gpus": 1, "command": ["x"],
		"regions": ["cn-west"], "data_locations": {"cn-west": "s3://west-bucket/shards"}}`, webtest.Bearer(f.Lead)...)
	if w.Code != http.StatusCreated {
		t.Fatalf("create = %d %s", w.Code, w.Body)
	}
	tpl := webtest.Decode[webtest.TemplateOut](t, w)
	w = f.S.Post("/api/v1/tasks", fmt.Sprintf(`{"template": %d}`, tpl.ID), webtest.Bearer(f.Member)...)
	if w.Code != http.StatusCreated {
		t.Fatalf("submit from the template = %d %s", w.Code, w.Body)
	}
	first := webtest.Decode[struct {
		ID int64 `json:"id"`
	}](t, w)
	form := webtest.DocOf(t, f.S.Get(fmt.Sprintf("/queue?resubmit=%d", first.ID), webtest.Bearer(f.Member)...).Result()).Find(`[data-testid=task-form]`)
	if got := form.Find(`input[name=template]`).AttrOr("value", ""); got != fmt.Sprint(tpl.ID) {
		t.Errorf("the resubmit form's template = %q, want %d", got, tpl.ID)
	}
	if got := form.Find(`[data-testid=form-data-locations] .mono`).Text(); got != "cn-west=s3://west-bucket/shards\n" {
		t.Errorf("the resubmit form shows data locations %q, want the template's", got)
	}
	// The form as it stands: its inputs, selected options, ticked boxes and text areas.
	v := url.Values{}
	form.Find(`input[name]`).Each(func(_ int, in *goquery.Selection) {
		if typ := in.AttrOr("type", ""); typ != "checkbox" || in.Is("[checked]") {
			v.Add(in.AttrOr("name", ""), in.AttrOr("value", ""))
		}
	})
	form.Find(`select[name] option[selected]`).Each(func(_ int, o *goquery.Selection) {
		v.Add(o.Closest("select").AttrOr("name", ""), o.AttrOr("value", ""))
	})
	form.Find(`textarea[name]`).Each(func(_ int, ta *goquery.Selection) { v.Add(ta.AttrOr("name", ""), ta.Text()) })
	if r := f.S.Form("/queue/tasks", v, webtest.Bearer(f.Member)...); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("submit the resubmit form = %d, want 303", r.StatusCode)
	}
	tasks, err := f.S.Store.Tasks(context.Background(), models.TaskFilter{Project: "vision"})
	if err != nil || len(tasks) != 2 {
		t.Fatalf("tasks = %d, %v; want the first and its resubmission", len(tasks), err)
	}
	again := tasks[0]
	if again.ID == first.ID {
		again = tasks[1]
	}
	if again.TemplateID == nil || *again.TemplateID != tpl.ID || !cmp.Equal(again.DataLocationMap(), map[string]string{"cn-west": "s3://west-bucket/shards"}) {
		t.Errorf("resubmitted task: template %v, data locations %v; want template %d and its locations", again.TemplateID, again.DataLocationMap(), tpl.ID)
	}
}
