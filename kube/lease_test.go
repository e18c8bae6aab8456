package kube_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kashi/kube"
	"kashi/kube/kubetest"
	"kashi/models"
	"kashi/models/modelstest"
)

// TestKubernetesLease, on SQLite and Postgres against a real apiserver: two controllers of
// one pool (two replicas) share its Lease; only its holder acts (registers nodes, reads
// assignments, makes pods); when it stops, it hands the Lease back and the other takes over
// and runs the pool's next task.
func TestKubernetesLease(t *testing.T) {
	cluster := kubetest.Start(t)
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, store *models.Store) {
		db := dbOf(t)
		w := setUpWorld(t, cluster, store, db)
		a, b := &countingStore{Store: store}, &countingStore{Store: store}
		stopA := w.start(a, kube.Config{Identity: "replica-a", LeaseDuration: 3 * time.Second})
		w.untilRegistered()
		w.start(b, kube.Config{Identity: "replica-b", LeaseDuration: 3 * time.Second})
		first := w.submit("first", 4)
		w.tick()
		w.untilState([]int64{first}, models.TaskRunning)
		time.Sleep(3 * time.Second) // a lease's length: b would have acted by now
		if a.calls.Load() == 0 || b.calls.Load() != 0 {
			t.Errorf("calls of the store by the holder a = %d, by b = %d; want b none", a.calls.Load(), b.calls.Load())
		}
		if got := w.leaseHolder(); got != "replica-a" {
			t.Errorf("the pool's Lease is held by %q, want replica-a", got)
		}

		stopA()
		w.until("replica-b holding the Lease", func() map[int64]*corev1.Pod {
			if w.leaseHolder() != "replica-b" {
				return nil
			}
			return map[int64]*corev1.Pod{}
		})
		second := w.submit("second", 4)
		w.tick()
		w.untilState([]int64{second}, models.TaskRunning)
		if p := w.pods()[second]; p == nil || b.calls.Load() == 0 {
			t.Errorf("after a stopped: the second task's pod = %v, b's calls %d; want b acting", p, b.calls.Load())
		}
	})
}

// countingStore counts the calls a controller makes to read a node's assignments or register
// one: what it does only while it acts.
type countingStore struct {
	*models.Store
	calls atomic.Int64
}

func (s *countingStore) Assignments(ctx context.Context, nodeID int64) ([]models.Assignment, error) {
	s.calls.Add(1)
	return s.Store.Assignments(ctx, nodeID)
}

func (s *countingStore) RegisterNode(ctx context.Context, req models.NodeRegistration, tokenHash string, now time.Time) (models.Node, error) {
	s.calls.Add(1)
	return s.Store.RegisterNode(ctx, req, tokenHash, now)
}

// leaseHolder is the holder of the pool's Lease; "" when there is none.
func (w *world) leaseHolder() string {
	l, err := w.cluster.Client.CoordinationV1().Leases(w.ns).Get(context.Background(), "kashi-"+w.pool, metav1.GetOptions{})
	if err != nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}
