package pools_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/web/webtest"
)

// TestPoolFlavorFillsNetwork: saving a pool whose flavor the cloud states a bandwidth between
// machines for fills its unstated network between nodes with it (one Ethernet port of that
// speed), from the form and the API alike; what the admin states is kept; a flavor that
// states nothing fills nothing.
func TestPoolFlavorFillsNetwork(t *testing.T) {
	cfg := webtest.TestCfg()
	cfg.Flavors = &webtest.StubFlavors{}
	s := webtest.NewServerOn(t, modelstest.SQLite(t, models.Options{}), cfg)
	attrs := func() models.PoolAttributes {
		t.Helper()
		p, err := s.Store.ConfiguredPoolByName(context.Background(), "gz-a100")
		if err != nil {
			t.Fatal(err)
		}
		return p.Config.Attributes()
	}
	form := url.Values{"provider": {"ctyun"}, "spec": {"A100-80G"}, "gpus_per_node": {"8"}, "flavor": {"pi7.8xlarge.a100"},
		"region": {"cn-gz1"}, "zone": {"cn-gz1-a"}, "max_nodes": {"2"}}
	if resp := s.Form("/pools/gz-a100", form); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("POST /pools/gz-a100 = %d", resp.StatusCode)
	}
	if a := attrs(); a.InterNodeLink != models.LinkEthernet || a.InterNodePorts != 1 || a.InterNodePortGbps != 25 {
		t.Errorf("from the form: %+v; want the flavor's 1×25 Gb/s Ethernet", a)
	}
	form.Set("inter_node_link", "roce")
	form.Set("inter_node_ports", "4")
	form.Set("inter_node_port_gbps", "200")
	if resp := s.Form("/pools/gz-a100", form); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("POST /pools/gz-a100 = %d", resp.StatusCode)
	}
	if a := attrs(); a.InterNodeLink != models.LinkRoCE || a.InterNodeGbps() != 800 {
		t.Errorf("stated by the admin: %+v; want 4×200 Gb/s RoCE kept", a)
	}
	w := s.Post("/api/v1/pools/gz-a100", `{"provider":"ctyun","spec":"A100-80G","gpus_per_node":8,"flavor":"pi7.8xlarge.a100","region":"cn-gz1","max_nodes":2}`)
	if a := attrs(); w.Code != http.StatusOK || a.InterNodeLink != models.LinkEthernet || a.InterNodePortGbps != 25 {
		t.Errorf("from the API = %d: %+v; want the flavor's 1×25 Gb/s Ethernet", w.Code, a)
	}
	w = s.Post("/api/v1/pools/gz-a100", `{"provider":"ctyun","spec":"A100-80G","gpus_per_node":4,"flavor":"pi7.4xlarge.a100","region":"cn-gz1","max_nodes":2}`)
	if a := attrs(); w.Code != http.StatusOK || a.InterNodeLink != "" {
		t.Errorf("a flavor stating nothing = %d: %+v; want nothing stated", w.Code, a)
	}
}
