package pools_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"kashi/api"
	"kashi/models"
	"kashi/web/webtest"
)

// TestTaskSpecsAndRegions submits tasks that accept several specs and regions: the answer
// shows them and the data's region; bad lists are 422 naming the field.
func TestTaskSpecsAndRegions(t *testing.T) {
	f := webtest.NewTemplateFixture(t)
	for body, field := range map[string]string{
		`{"project": "vision", "name": "x", "gpus": 1, "command": ["x"], "specs": ["A100-80G", "nope"]}`:       "specs",
		`{"project": "vision", "name": "x", "gpus": 1, "command": ["x"], "specs": ["A100-80G", "A100-80G"]}`:   "specs",
		`{"project": "vision", "name": "x", "gpus": 1, "command": ["x"], "specs": ["A100-80G"], "spec": "H1"}`: "spec",
		`{"project": "vision", "name": "x", "gpus": 9, "command": ["x"], "specs": ["A100-80G"]}`:               "gpus",
		`{"project": "vision", "name": "x", "gpus": 1, "command": ["x"], "regions": [""]}`:                     "regions",
		`{"project": "vision", "name": "x", "gpus": 1, "command": ["x"], "data_check": {"region": "cn-east"}}`: "data_check.region",
	} {
		w := f.S.Post("/api/v1/tasks", body, webtest.Bearer(f.Member)...)
		if e := webtest.Decode[api.Error](t, w); w.Code != http.StatusUnprocessableEntity || e.Field != field {
			t.Errorf("POST %s = %d %s, want 422 naming %s", body, w.Code, w.Body, field)
		}
	}
	w := f.S.Post("/api/v1/tasks", `{"project": "vision", "name": "x", "gpus": 2, "command": ["x"], "specs": ["A100-80G"],
		"regions": ["cn-east", "cn-west"], "data_check": {"path": "/data/set", "region": "cn-west"}}`, webtest.Bearer(f.Member)...)
	if w.Code != http.StatusCreated {
		t.Fatalf("submit = %d %s, want 201", w.Code, w.Body)
	}
	type out struct {
		Specs     []string          `json:"specs"`
		Regions   []string          `json:"regions"`
		DataCheck map[string]string `json:"data_check"`
	}
	want := out{[]string{"A100-80G"}, []string{"cn-east", "cn-west"}, map[string]string{"path": "/data/set", "region": "cn-west"}}
	if diff := cmp.Diff(want, webtest.Decode[out](t, w)); diff != "" {
		t.Errorf("task (-want +got):\n%s", diff)
	}
}

// TestQueueShowsWhereAndRegions shows on the queue page and in GET /api/v1/queue where each
// task starts or is expected to start and why, and the free capacity grouped by region.
func TestQueueShowsWhereAndRegions(t *testing.T) {
	s := webtest.NewServer(t)
	ctx := context.Background()
	s.Projects("vision")
	for _, pl := range []struct{ pool, region, host string }{{"a100-east", "cn-east", "e1"}, {"a100-west", "cn-west", "w1"}} {
		if _, err := s.Store.SavePoolConfig(ctx, pl.pool, models.PoolConfig{Provider: "static", Spec: webtest.A100Spec, GPUsPerNode: 4,
			Region: pl.region, MaxNodes: 1}, "tester", "", webtest.T0); err != nil {
			t.Fatal(err)
		}
		s.Register(webtest.Node(pl.host).InPool(pl.pool).Cards(webtest.A100Name, webtest.A100MiB, 4))
	}
	east := s.Create(webtest.Task("anywhere").GPUs(2).Ready(), webtest.T0)
	w := s.Post("/api/v1/tasks", `{"project": "vision", "name": "west-data", "gpus": 4, "command": ["x"], "data_ready": true,
		"regions": ["cn-west"], "data_check": {"path": "/data/d", "region": "cn-west"}}`)
	if w.Code != http.StatusCreated {
		t.Fatalf("submit = %d %s", w.Code, w.Body)
	}
	west := webtest.Decode[struct{ ID int64 }](t, w)
	doc := webtest.DocOf(t, s.Get("/queue").Result())
	got := map[string]string{}
	doc.Find(`[data-testid=queue-row]`).Each(func(_ int, r *goquery.Selection) {
		got[r.AttrOr("data-task-id", "")] = r.Find(`[data-testid=where]`).AttrOr("data-region", "") + " " +
			r.Find(`[data-testid=where]`).AttrOr("data-why", "")
	})
	want := map[string]string{fmt.Sprint(east.ID): "cn-east first-free", fmt.Sprint(west.ID): "cn-west data-region"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("where (-want +got):\n%s", diff)
	}
	var regions []string
	doc.Find(`[data-testid=capacity-row]`).Each(func(_ int, r *goquery.Selection) {
		regions = append(regions, r.AttrOr("data-region", "")+"/"+r.AttrOr("data-spec", ""))
	})
	if diff := cmp.Diff([]string{"cn-east/" + webtest.A100Spec, "cn-west/" + webtest.A100Spec}, regions); diff != "" {
		t.Errorf("capacity rows (-want +got):\n%s", diff)
	}
	if n := doc.Find(`[data-testid=capacity-region]`).Length(); n != 2 {
		t.Errorf("capacity region headings = %d, want 2", n)
	}
	q := webtest.Decode[struct {
		Tasks []struct {
			ID          int64  `json:"id"`
			PlaceRegion string `json:"place_region"`
			PlaceWhy    string `json:"place_why"`
		} `json:"tasks"`
		Capacity []struct{ Region string } `json:"capacity"`
	}](t, s.Get("/api/v1/queue"))
	if len(q.Tasks) != 2 || q.Tasks[1].ID != west.ID || q.Tasks[1].PlaceRegion != "cn-west" || q.Tasks[1].PlaceWhy != "data-region" ||
		len(q.Capacity) != 2 || q.Capacity[0].Region != "cn-east" {
		t.Errorf("GET /api/v1/queue = %+v", q)
	}
}

// TestBillLinesShowRegion shows each bill line's region: the region setting of the pool of
// the nodes its cards were on, in the JSON and on the bill page.
func TestBillLinesShowRegion(t *testing.T) {
	w := webtest.NewBillWorld(t)
	if _, err := w.Store.SavePoolConfig(context.Background(), "a100", models.PoolConfig{Provider: "static", Spec: webtest.A100Spec,
		GPUsPerNode: 4, Region: "cn-east", MaxNodes: 1}, "tester", "", webtest.T0); err != nil {
		t.Fatal(err)
	}
	b := webtest.Decode[struct {
		Lines []struct {
			Spec, Region string
		} `json:"lines"`
	}](t, w.Get("/api/v1/bills/vision/"+webtest.BillMonth+"?format=json"))
	if len(b.Lines) == 0 {
		t.Fatal("no bill lines")
	}
	for _, l := range b.Lines {
		if l.Region != "cn-east" {
			t.Errorf("line %+v, want region cn-east", l)
		}
	}
	doc := webtest.DocOf(t, w.Get("/bills/vision/"+webtest.BillMonth).Result())
	if got := doc.Find(`[data-testid=bill-line] [data-testid=line-region]`).First().Text(); got != "cn-east" {
		t.Errorf("bill page line region = %q, want cn-east", got)
	}
}
