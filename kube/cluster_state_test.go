package kube_test

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/clientcmd"

	"kashi/api"
	"kashi/kube"
	"kashi/kube/kubetest"
	"kashi/models"
	"kashi/models/modelstest"
	"kashi/web/webtest"
)

// TestKubernetesClusterState, on SQLite and Postgres against a real apiserver: the pools
// page and GET /api/v1/pools show a Kubernetes pool's cluster as the replica's controller
// sees it, read from one place (kube.Controller.ClusterStates) and equal on both: before the
// controller looked, not watched; then the apiserver reached, the Lease held, 7 nodes Ready
// and 1 NotReady, 1 cordoned, and the pods of the two tasks placed; a pool whose
// apiserver does not answer, not reached with the error.
func TestKubernetesClusterState(t *testing.T) {
	cluster := kubetest.Start(t)
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, store *models.Store) {
		db := dbOf(t)
		w := setUpWorld(t, cluster, store, db)
		ctl := kube.New(store, kube.Config{Now: w.s.Clock, Logger: quiet, StopGrace: time.Second, Resync: time.Second})
		cfg := webtest.TestCfg()
		cfg.Clusters = ctl
		s := webtest.NewServerOn(t, store, cfg)
		if c := poolCluster(t, s, w.pool); c == nil || c.Watched {
			t.Errorf("a Kubernetes pool's cluster before its controller looked = %+v, want not watched", c)
		}
		if got := pageCluster(t, s, w.pool, "en"); got.watched {
			t.Errorf("the pools page shows the pool's cluster watched before its controller looked: %+v", got)
		}

		gone := w.pool + "-gone"
		body := fmt.Sprintf(`{"provider":"static","spec":"A100-80G","gpus_per_node":8,"backend":"kubernetes","kube_node_selector":"kashi.test/pool=%s-gone","kubeconfig":%q}`,
			db, unreachable(t, cluster))
		if resp := s.Post("/api/v1/pools/"+gone, body); resp.Code != http.StatusOK {
			t.Fatalf("POST /api/v1/pools/%s = %d %s", gone, resp.Code, resp.Body)
		}
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(func() { cancel(); ctl.Stop() })
		if err := ctl.Tick(ctx); err != nil {
			t.Fatal(err)
		}
		w.untilRegistered()
		node := func(i int) string { return fmt.Sprintf("%s-gpu-%d", db, i) }
		w.cordon(node(1), true)
		w.notReady(node(2))
		ids := []int64{w.submit("a", 4), w.submit("b", 4)}
		w.tick()
		w.until("the tasks' pods", func() map[int64]*corev1.Pod {
			ps := w.pods()
			if ps[ids[0]] == nil || ps[ids[1]] == nil {
				return nil
			}
			return ps
		})

		want := api.PoolCluster{Watched: true, Reached: true, LeaseHeld: true, NodesReady: 7, NodesNotReady: 1, NodesCordoned: 1, Pods: 2}
		var got *api.PoolCluster
		w.until("the cluster's state on the API", func() map[int64]*corev1.Pod {
			got = poolCluster(t, s, w.pool)
			if got == nil || got.CheckedAt == nil || !sameCounts(*got, want) {
				return nil
			}
			return map[int64]*corev1.Pod{}
		})
		if got.LastError != "" {
			t.Errorf("the reached cluster's last error = %q, want none", got.LastError)
		}
		for _, lang := range []string{"en", "zh-CN"} {
			page := pageCluster(t, s, w.pool, lang)
			if !page.watched || !page.reached || !page.held || page.ready != "7" || page.notReady != "1" || page.cordoned != "1" ||
				page.pods != "2" || page.err != "" {
				t.Errorf("the pools page (%s) shows the cluster as %+v; the API as %+v", lang, page, *got)
			}
		}

		var down *api.PoolCluster
		w.until("the unreachable cluster's state", func() map[int64]*corev1.Pod {
			down = poolCluster(t, s, gone)
			if down == nil || down.CheckedAt == nil || down.LastError == "" {
				return nil
			}
			return map[int64]*corev1.Pod{}
		})
		if down.Reached || !strings.Contains(down.LastError, "127.0.0.1:1") {
			t.Errorf("a cluster whose apiserver does not answer = %+v, want not reached, its error naming the address", *down)
		}
		page := pageCluster(t, s, gone, "en")
		if !page.watched || page.reached || !strings.Contains(page.err, "127.0.0.1:1") {
			t.Errorf("the pools page shows the unreachable cluster as %+v", page)
		}
	})
}

// sameCounts reports whether a cluster state's flags and counts are want's.
func sameCounts(got, want api.PoolCluster) bool {
	return got.Watched == want.Watched && got.Reached == want.Reached && got.LeaseHeld == want.LeaseHeld &&
		got.NodesReady == want.NodesReady && got.NodesNotReady == want.NodesNotReady && got.NodesCordoned == want.NodesCordoned &&
		got.Pods == want.Pods
}

// poolCluster is the named pool's cluster as GET /api/v1/pools shows it.
func poolCluster(t *testing.T, s *webtest.Server, name string) *api.PoolCluster {
	t.Helper()
	for _, p := range webtest.Decode[[]api.Pool](t, s.Get("/api/v1/pools")) {
		if p.Name == name {
			return p.Cluster
		}
	}
	t.Fatalf("GET /api/v1/pools lists no pool %s", name)
	return nil
}

// shownCluster is a pool's cluster as the pools page shows it.
type shownCluster struct {
	watched, reached, held          bool
	ready, notReady, cordoned, pods string
	err                             string
}

// pageCluster is the named pool's cluster on the pools page in lang.
func pageCluster(t *testing.T, s *webtest.Server, name, lang string) shownCluster {
	t.Helper()
	doc := webtest.Parse(t, s.Get("/pools", "Accept-Language", lang).Body.String())
	c := doc.Find(`[data-testid="pool"][data-pool="` + name + `"] [data-testid="pool-cluster"]`)
	if c.Length() != 1 {
		t.Fatalf("the pools page (%s) shows %d cluster blocks for pool %s, want 1", lang, c.Length(), name)
	}
	nodes := c.Find(`[data-testid="cluster-nodes"]`)
	return shownCluster{watched: c.AttrOr("data-watched", "") == "true",
		reached: c.Find(`[data-testid="cluster-reached"]`).AttrOr("data-reached", "") == "true",
		held:    c.Find(`[data-testid="cluster-lease"]`).AttrOr("data-held", "") == "true",
		ready:   nodes.AttrOr("data-ready", ""), notReady: nodes.AttrOr("data-not-ready", ""), cordoned: nodes.AttrOr("data-cordoned", ""),
		pods: strings.TrimSpace(c.Find(`[data-testid="cluster-pods"]`).Text()),
		err:  strings.TrimSpace(c.Find(`[data-testid="cluster-error"]`).Text())}
}

// unreachable writes a kubeconfig like the cluster's whose apiserver is 127.0.0.1:1, where
// nothing listens, and returns its path.
func unreachable(t *testing.T, cluster *kubetest.Cluster) string {
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
