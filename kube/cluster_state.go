package kube

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"

	"kashi/api"
)

// clusterState is what this replica knows of a Kubernetes pool's cluster, which the pools
// page and API show (Controller.ClusterStates): whether its apiserver answered the last
// look (every Resync, whether or not this replica holds the pool's Lease), the last error
// reaching it or acting on it, and, while this replica holds the Lease, the running
// controller, whose caches count the nodes and pods.
type clusterState struct {
	mu        sync.Mutex
	checkedAt time.Time
	reached   bool
	lastErr   string
	lastErrAt time.Time
	// leading is the controller of this replica's term with the Lease; nil without it.
	leading *poolController
}

// checked records a look at the apiserver at now: err nil when it answered.
func (s *clusterState) checked(now time.Time, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.checkedAt, s.reached = now, err == nil
	if err != nil {
		s.lastErr, s.lastErrAt = err.Error(), now
	}
}

// failed records an error of the controller's at now (a sync, a connection).
func (s *clusterState) failed(now time.Time, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lastErr, s.lastErrAt = err.Error(), now
}

// lead records the controller that acts for this replica while it holds the Lease; nil when
// its term ended.
func (s *clusterState) lead(pc *poolController) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.leading = pc
}

// leader is the controller that acts for this replica while it holds the Lease; nil
// without it.
func (s *clusterState) leader() *poolController {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.leading
}

// wire is the state as the API shows it, the nodes and pods counted from the holding
// controller's caches now.
func (s *clusterState) wire() api.PoolCluster {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := api.PoolCluster{Watched: true, Reached: s.reached, LastError: s.lastErr, LeaseHeld: s.leading != nil}
	if !s.checkedAt.IsZero() {
		at := s.checkedAt
		out.CheckedAt = &at
	}
	if !s.lastErrAt.IsZero() {
		at := s.lastErrAt
		out.LastErrorAt = &at
	}
	if s.leading != nil {
		s.leading.count(&out)
	}
	return out
}

// probe looks at the apiserver (GET /version, given at most Resync to answer) now and then
// every Resync until ctx ends.
func probe(ctx context.Context, client kubernetes.Interface, s *clusterState, cfg Config) {
	t := time.NewTicker(cfg.Resync)
	defer t.Stop()
	for {
		lctx, cancel := context.WithTimeout(ctx, cfg.Resync)
		_, err := client.Discovery().RESTClient().Get().AbsPath("/version").Do(lctx).Raw()
		cancel()
		if ctx.Err() != nil {
			return
		}
		s.checked(cfg.Now(), err)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// count fills in the selected nodes, Ready or not and cordoned (a cordoned node is counted
// as Ready or not too), and the pods of the pool's tasks that have not ended and are not
// being deleted, from the controller's caches.
func (pc *poolController) count(out *api.PoolCluster) {
	nodes, err := pc.nodes.List(pc.selector)
	if err == nil {
		for _, n := range nodes {
			if ready(n) {
				out.NodesReady++
			} else {
				out.NodesNotReady++
			}
			if n.Spec.Unschedulable {
				out.NodesCordoned++
			}
		}
	}
	for _, o := range pc.pods.List() {
		if p := o.(*corev1.Pod); p.DeletionTimestamp == nil && !ended(p) {
			out.Pods++
		}
	}
}
