package kube_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kashi/kube"
	"kashi/kube/kubetest"
	"kashi/models"
	"kashi/models/modelstest"
)

// TestPodMadeWholeAfterItsCompanionsFailed: an apiserver that times out on a task's Secrets
// and Service (as a loaded one does) leaves its pods made without them; once it answers again,
// the next syncs of their nodes make them, each owned by its pod, and the task runs. (CI's
// TestKubernetesMultiNode/postgres on 5bcc8b8 found a rank-0 pod whose Secret's apply had
// timed out: the pod was made first and never given one.)
func TestPodMadeWholeAfterItsCompanionsFailed(t *testing.T) {
	cluster := kubetest.Start(t)
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, store *models.Store) {
		ctx := context.Background()
		var failing atomic.Bool
		failing.Store(true)
		kubeconfig := cluster.FaultyKubeconfig(t, func(r *http.Request) bool {
			return failing.Load() && r.Method == http.MethodPatch &&
				(strings.Contains(r.URL.Path, "/secrets/") || strings.Contains(r.URL.Path, "/services/"))
		})
		w := setUpWorldAs(t, cluster, store, dbOf(t), kubeconfig, "default")
		w.start(store, kube.Config{})
		w.untilRegistered()
		id := w.submit("two", 16)
		pods := w.untilRanks(id, 1, 2)
		secrets, services := cluster.Client.CoreV1().Secrets(w.ns), cluster.Client.CoreV1().Services(w.ns)
		for _, p := range pods {
			if _, err := secrets.Get(ctx, p.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Fatalf("pod %s's Secret while the apiserver fails it: %v, want none", p.Name, err)
			}
		}
		failing.Store(false)

		w.untilWhole(pods...)
		for _, p := range pods {
			sec, err := secrets.Get(ctx, p.Name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if string(sec.Data["SEED"]) != "7" || !ownedBy(sec.OwnerReferences, p) {
				t.Errorf("pod %s's Secret = %v owned by %v, want SEED=7 owned by the pod (%s)", p.Name, sec.Data, sec.OwnerReferences, p.UID)
			}
		}
		svc, err := services.Get(ctx, pods[0].Name, metav1.GetOptions{})
		if err != nil || !ownedBy(svc.OwnerReferences, pods[0]) {
			t.Errorf("rank 0's Service: %v, %v; want it owned by the pod (%s)", svc.OwnerReferences, err, pods[0].UID)
		}
		w.untilState([]int64{id}, models.TaskRunning)
	})
}

// ownedBy reports whether refs name the pod as the controller owner.
func ownedBy(refs []metav1.OwnerReference, p *corev1.Pod) bool {
	return len(refs) == 1 && refs[0].UID == p.UID && refs[0].Kind == "Pod" && refs[0].Controller != nil && *refs[0].Controller
}

// untilWhole waits until each pod has its companions: its env Secret and, for the rank-0 pod
// of a task across nodes, its rendezvous Service. (They follow the pod, so a test that sees
// the pod may be a moment ahead of them.)
func (w *world) untilWhole(pods ...*corev1.Pod) {
	w.t.Helper()
	ctx := context.Background()
	w.until("the pods' Secrets and Services", func() map[int64]*corev1.Pod {
		for _, p := range pods {
			if _, err := w.cluster.Client.CoreV1().Secrets(w.ns).Get(ctx, p.Name, metav1.GetOptions{}); err != nil {
				return nil
			}
			if p.Labels["kashi.io/node-rank"] == "0" {
				if _, err := w.cluster.Client.CoreV1().Services(w.ns).Get(ctx, p.Name, metav1.GetOptions{}); err != nil {
					return nil
				}
			}
		}
		return map[int64]*corev1.Pod{}
	})
}
