package pools_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"kashi/api"
	"kashi/web/webtest"
)

// TestPoolRequireImageRefusesSubmits: a pool that requires images refuses, through the API
// and the form, a task for its spec without one, naming the field; the pool form shows the
// setting and the pool's container mounts.
func TestPoolRequireImageRefusesSubmits(t *testing.T) {
	s := webtest.NewPoolServer(t)
	s.Projects("vision")
	cfg := webtest.A100Config()
	cfg.RequireImage, cfg.ContainerMounts = true, "/data:/data:ro"
	if _, err := s.Store.SavePoolConfig(context.Background(), "a100", cfg, "tester", "", webtest.T0); err != nil {
		t.Fatal(err)
	}
	body := `{"project":"vision","name":"bare","owner":"admin","gpus":1,"spec":"A100-80G","queue":"long","priority":"normal",
		"command":["python","train.py"],"data_ready":true}`
	w := s.Post("/api/v1/tasks", body)
	if e := webtest.Decode[api.Error](t, w); w.Code != http.StatusUnprocessableEntity || e.Field != "image" || !strings.Contains(e.Error, `"a100"`) {
		t.Errorf("POST /api/v1/tasks without image = %d %v, want 422 on image naming pool a100", w.Code, e)
	}
	if w := s.Post("/api/v1/tasks", strings.Replace(body, `"data_ready"`, `"image":"busybox:1.36","data_ready"`, 1)); w.Code != http.StatusCreated {
		t.Errorf("POST /api/v1/tasks with an image = %d %s, want 201", w.Code, w.Body)
	}

	form := url.Values{"project": {"vision"}, "name": {"bare"}, "owner": {"admin"}, "gpus": {"1"}, "spec": {"A100-80G"},
		"queue": {"long"}, "priority": {"normal"}, "max_runtime_h": {"4"}, "command": {"python\ntrain.py"}, "data_ready": {"on"}}
	resp := s.Form("/queue/tasks", form)
	if resp.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("POST /queue/tasks without image = %d, want 422", resp.StatusCode)
	}
	doc := webtest.DocOf(t, resp)
	if msg := doc.Find(`[data-testid=field-error][data-field=image]`).Text(); !strings.Contains(msg, "is required") {
		t.Errorf("error beside image = %q, want the refusal", msg)
	}
	if v := doc.Find(`[name=image]`).AttrOr("aria-invalid", ""); v != "true" {
		t.Errorf("image aria-invalid = %q, want true", v)
	}

	page := webtest.Parse(t, s.Get("/pools/a100/edit").Body.String()).Find(`[data-testid=pool-form]`)
	if _, ok := page.Find(`[name=require_image]`).Attr("checked"); !ok {
		t.Errorf("the pool form's require_image is not checked")
	}
	if v := page.Find(`[name=container_mounts]`).AttrOr("value", ""); v != "/data:/data:ro" {
		t.Errorf("the pool form's container_mounts = %q, want /data:/data:ro", v)
	}
	bad := url.Values{"provider": {"sim"}, "spec": {"A100-80G"}, "gpus_per_node": {"8"}, "max_nodes": {"6"},
		"container_mounts": {"data:/data"}}
	resp = s.Form("/pools/a100", bad)
	if msg := webtest.DocOf(t, resp).Find(`[data-testid=field-error][data-field=container_mounts]`).Text(); resp.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(msg, "data:/data") {
		t.Errorf("POST /pools/a100 with a relative mount = %d, error %q; want 422 beside container_mounts", resp.StatusCode, msg)
	}
}

// TestRegisterTellsImagesToPull: a node joining a pool whose spec has tasks waiting in images
// is told those images in pre_pull.
func TestRegisterTellsImagesToPull(t *testing.T) {
	s := webtest.NewPoolServer(t)
	s.Projects("vision")
	body := `{"project":"vision","name":"boxed","owner":"admin","gpus":1,"spec":"A100-80G","queue":"long","priority":"normal",
		"command":["python","train.py"],"image":"nvcr.io/nvidia/pytorch:24.05-py3","data_ready":true}`
	if w := s.Post("/api/v1/tasks", body); w.Code != http.StatusCreated {
		t.Fatalf("POST /api/v1/tasks = %d %s", w.Code, w.Body)
	}
	w := s.Post(api.PathRegister, webtest.MustJSON(t, webtest.Node("a100-02").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 8).R), webtest.Bearer(webtest.JoinToken)...)
	if resp := webtest.Decode[api.RegisterResponse](t, w); w.Code != http.StatusOK || len(resp.PrePull) != 1 || resp.PrePull[0] != "nvcr.io/nvidia/pytorch:24.05-py3" {
		t.Errorf("POST %s = %d, pre_pull %q; want the waiting task's image", api.PathRegister, w.Code, resp.PrePull)
	}
}
