package pools_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"kashi/web/webtest"
)

// TestPoolTaskSettingsForm: the pool form's "tasks on the nodes" group sets whom tasks run
// as and their limits per GPU, in both languages, refusing a limit out of range beside its
// field; the API refuses it naming the field.
func TestPoolTaskSettingsForm(t *testing.T) {
	s := webtest.NewPoolServer(t)
	form := func(mem, cpus string) url.Values {
		return url.Values{"provider": {"sim"}, "spec": {"A100-80G"}, "gpus_per_node": {"8"}, "max_nodes": {"6"},
			"enabled": {"on"}, "accounts_by_name": {"on"}, "task_memory_per_gpu_gib": {mem}, "task_cpus_per_gpu": {cpus}}
	}
	for field, v := range map[string]url.Values{"task_memory_per_gpu_gib": form("4097", "8"), "task_cpus_per_gpu": form("64", "-1")} {
		resp := s.Form("/pools/a100", v)
		if n := webtest.DocOf(t, resp).Find(`[data-testid=field-error][data-field=` + field + `]`).Length(); resp.StatusCode != http.StatusUnprocessableEntity || n != 1 {
			t.Errorf("POST /pools/a100 with a bad %s = %d with %d field errors, want 422 beside the field", field, resp.StatusCode, n)
		}
	}
	if resp := s.Form("/pools/a100", form("64", "8")); resp.StatusCode >= 400 {
		t.Fatalf("POST /pools/a100 = %d", resp.StatusCode)
	}
	p, err := s.Store.ConfiguredPoolByName(context.Background(), "a100")
	if c := p.Config; err != nil || !c.AccountsByName || c.AllowRoot || c.TaskMemoryPerGPUGiB != 64 || c.TaskCPUsPerGPU != 8 {
		t.Errorf("saved %+v, %v", p.Config, err)
	}
	for lang, want := range map[string]string{"en": "Tasks may run as root", "zh-CN": "允许任务以 root 运行"} {
		doc := webtest.Parse(t, s.Get("/pools/a100/edit", "Cookie", "kashi_lang="+lang).Body.String())
		if v := doc.Find(`[name=task_memory_per_gpu_gib]`).AttrOr("value", ""); v != "64" {
			t.Errorf("%s: the form shows %q GiB, want 64", lang, v)
		}
		if !strings.Contains(doc.Find(`[data-field=allow_root] label`).Text(), want) {
			t.Errorf("%s: allow_root's label = %q, want %q", lang, doc.Find(`[data-field=allow_root] label`).Text(), want)
		}
	}
	w := s.Post("/api/v1/pools/a100", `{"provider":"sim","spec":"A100-80G","gpus_per_node":8,"max_nodes":6,"task_cpus_per_gpu":2000}`)
	webtest.WantAPIError(t, "POST /api/v1/pools/a100 with 2000 CPUs a GPU", w, http.StatusUnprocessableEntity, "task_cpus_per_gpu")
}
