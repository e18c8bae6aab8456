package browser_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/clientcmd"

	"kashi/kube"
	"kashi/kube/kubetest"
	"kashi/models"
	"kashi/models/modelstest"
	"kashi/web/webtest"
)

// TestBrowserKubernetesPool shows two Kubernetes pools' clusters on /pools, as a real
// controller over kube-apiserver and kwok sees them, in both languages on a desktop and a
// phone without sideways scrolling: one reached, its Lease held, 4 nodes (one cordoned);
// one whose apiserver does not answer, with its error.
func TestBrowserKubernetesPool(t *testing.T) {
	cluster := kubetest.Start(t)
	store := modelstest.SQLite(t, models.Options{})
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	var s *webtest.Server
	ctl := kube.New(store, kube.Config{Now: func() time.Time { return s.Clock() }, Logger: quiet, Resync: time.Second})
	cfg := webtest.TestCfg()
	cfg.Clusters = ctl
	s = webtest.NewServerOn(t, store, cfg)
	for i := range 4 {
		cluster.AddGPUNode(t, fmt.Sprintf("browser-gpu-%d", i), 8, map[string]string{"kashi.test/pool": "browser",
			"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "nvidia.com/gpu.memory": "81920"})
	}
	if _, err := cluster.Client.CoreV1().Nodes().Patch(context.Background(), "browser-gpu-3", types.StrategicMergePatchType,
		[]byte(`{"spec":{"unschedulable":true}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, kc := range map[string]string{"k8s-a100": cluster.Kubeconfig, "k8s-gone": deadKubeconfig(t, cluster)} {
		body := fmt.Sprintf(`{"provider":"static","spec":"A100-80G","gpus_per_node":8,"backend":"kubernetes","kube_node_selector":"kashi.test/pool=browser","kubeconfig":%q,"require_image":true}`, kc)
		if resp := s.Post("/api/v1/pools/"+name, body); resp.Code != http.StatusOK {
			t.Fatalf("POST /api/v1/pools/%s = %d %s", name, resp.Code, resp.Body)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); ctl.Stop() }()
	if err := ctl.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		st := ctl.ClusterStates()
		if a, g := st["k8s-a100"], st["k8s-gone"]; a.LeaseHeld && a.NodesReady == 4 && a.NodesCordoned == 1 && g.LastError != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the clusters' states in a minute: %+v", ctl.ClusterStates())
		}
	}
	srv := httptest.NewServer(s.E)
	defer srv.Close()
	b := newBrowser(t, srv.URL, 120*time.Second)
	if err := chromedp.Do(b.ctx, b.login("tester", "pw-tester")); err != nil {
		t.Fatal(err)
	}
	shootPages(t, b, srv.URL, "kube-pool", []shotPage{{"pools", "/pools", `[data-pool="k8s-a100"] [data-testid=cluster-nodes]`}})
}

// deadKubeconfig writes a kubeconfig like the cluster's whose apiserver is 127.0.0.1:1,
// where nothing listens, and returns its path.
func deadKubeconfig(t *testing.T, cluster *kubetest.Cluster) string {
	t.Helper()
	kc, err := clientcmd.LoadFromFile(cluster.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range kc.Clusters {
		c.Server = "https://127.0.0.1:1"
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}
