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

// TestPoolAttributesForm: the pool form's "interconnect and storage" group sets what the pool
// states, refusing a network between nodes without ports beside the field; the pools page
// shows what it states in both languages, and the API takes and shows the same settings.
func TestPoolAttributesForm(t *testing.T) {
	s := webtest.NewPoolServer(t)
	form := func(link, ports string) url.Values {
		return url.Values{"provider": {"sim"}, "spec": {"A100-80G"}, "gpus_per_node": {"8"}, "max_nodes": {"6"}, "enabled": {"on"},
			"intra_node_link": {"nvlink"}, "intra_node_gbytes_s": {"600"}, "inter_node_link": {link}, "inter_node_ports": {ports},
			"inter_node_port_gbps": {"200"}, "local_storage_mbps": {"3000"}, "shared_storage_mbps": {"2000"}}
	}
	resp := s.Form("/pools/a100", form("roce", "0"))
	if n := webtest.DocOf(t, resp).Find(`[data-testid=field-error][data-field=inter_node_ports]`).Length(); resp.StatusCode != http.StatusUnprocessableEntity || n != 1 {
		t.Errorf("RoCE with no ports = %d with %d field errors, want 422 beside inter_node_ports", resp.StatusCode, n)
	}
	if resp := s.Form("/pools/a100", form("roce", "4")); resp.StatusCode >= 400 {
		t.Fatalf("POST /pools/a100 = %d", resp.StatusCode)
	}
	p, err := s.Store.ConfiguredPoolByName(context.Background(), "a100")
	if a := p.Config.Attributes(); err != nil || a.InterNodeGbps() != 800 || a.IntraNodeLink != "nvlink" || a.StorageMBps() != 3000 {
		t.Errorf("saved %+v, %v", p.Config.Attributes(), err)
	}
	for lang, want := range map[string][2]string{
		"en":    {"NVLink 600 GB/s between cards · 4×200 Gb/s RoCE between nodes · local disks 3,000 MB/s · shared storage 2,000 MB/s", "Network between nodes"},
		"zh-CN": {"卡间 NVLink 600 GB/s · 节点间 4×200 Gb/s RoCE · 本地盘 3,000 MB/s · 共享存储 2,000 MB/s", "节点间网络"},
	} {
		doc := webtest.Parse(t, s.Get("/pools", "Cookie", "kashi_lang="+lang).Body.String())
		if got := strings.TrimSpace(doc.Find(`[data-testid=pool-attrs]`).Text()); got != want[0] {
			t.Errorf("%s: the pools page says %q, want %q", lang, got, want[0])
		}
		edit := webtest.Parse(t, s.Get("/pools/a100/edit", "Cookie", "kashi_lang="+lang).Body.String())
		if got := edit.Find(`[data-field=inter_node_link] label`).Text(); !strings.Contains(got, want[1]) {
			t.Errorf("%s: inter_node_link's label = %q, want %q", lang, got, want[1])
		}
		if v := edit.Find(`[name=inter_node_ports]`).AttrOr("value", ""); v != "4" {
			t.Errorf("%s: the form shows %q ports, want 4", lang, v)
		}
	}
	w := s.Post("/api/v1/pools/a100", `{"provider":"sim","spec":"A100-80G","gpus_per_node":8,"max_nodes":6,"inter_node_link":"none","inter_node_ports":2}`)
	if e := webtest.Decode[api.Error](t, w); w.Code != http.StatusUnprocessableEntity || e.Field != "inter_node_ports" {
		t.Errorf("POST /api/v1/pools/a100 with ports and no network = %d %+v, want 422 on inter_node_ports", w.Code, e)
	}
	w = s.Post("/api/v1/pools/a100", `{"provider":"sim","spec":"A100-80G","gpus_per_node":8,"max_nodes":6,"inter_node_link":"none"}`)
	if w.Code != http.StatusOK {
		t.Fatalf("POST /api/v1/pools/a100 = %d %s", w.Code, w.Body)
	}
	doc := webtest.Parse(t, s.Get("/pools").Body.String())
	if got := doc.Find(`[data-testid=pool-attrs]`); got.AttrOr("data-inter-node", "") != "none" || strings.TrimSpace(got.Text()) != "no network between nodes" {
		t.Errorf("after the API change the pools page says %q (%s)", got.Text(), got.AttrOr("data-inter-node", ""))
	}
}
