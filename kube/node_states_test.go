package kube_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"kashi/kube/kubetest"
	"kashi/models"
	"kashi/models/modelstest"
)

// TestKubernetesNodeStates, on SQLite and Postgres against a real apiserver: a cordoned node
// is drained in Kashi and takes no new task, while the pods it runs run on; uncordoned, it
// takes tasks again; a node that goes NotReady and is then lost has its task queued again and
// its pod deleted, though no kubelet answers for it.
func TestKubernetesNodeStates(t *testing.T) {
	cluster := kubetest.Start(t)
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, store *models.Store) {
		db := dbOf(t)
		w := newWorld(t, cluster, store, db)
		node := func(i int) string { return fmt.Sprintf("%s-gpu-%d", db, i) }
		for i := 1; i < 8; i++ {
			w.cordon(node(i), true)
		}
		w.untilNodes("nodes 1-7 draining", func(state map[string]string) bool {
			for i := 1; i < 8; i++ {
				if state[node(i)] != models.NodeDraining {
					return false
				}
			}
			return state[node(0)] == models.NodeReady
		})
		ids := []int64{w.submit("a", 4), w.submit("b", 4), w.submit("c", 4)}
		w.tick()
		w.untilState(ids[:2], models.TaskRunning)
		if task := w.task(ids[2]); task.State != models.TaskQueued {
			t.Errorf("a third task with only cordoned nodes free is %s, want queued", task.State)
		}
		for _, id := range ids[:2] {
			if p := w.pods()[id]; p == nil || p.Spec.NodeName != node(0) {
				t.Errorf("task %d's pod = %v, want on %s, the one node not cordoned", id, p, node(0))
			}
		}

		// A node cordoned under its tasks: drained in Kashi, its pods run on.
		w.cordon(node(0), true)
		w.cordon(node(1), false)
		w.untilNodes("node 0 draining, node 1 ready", func(state map[string]string) bool {
			return state[node(0)] == models.NodeDraining && state[node(1)] == models.NodeReady
		})
		w.tick()
		w.untilState(ids[2:], models.TaskRunning)
		time.Sleep(2 * time.Second) // two resyncs
		pods := w.pods()
		for _, id := range ids[:2] {
			if task := w.task(id); task.State != models.TaskRunning || pods[id] == nil {
				t.Errorf("task %d on the node cordoned under it = %s, pod %v; want running on", id, task.State, pods[id])
			}
		}
		if p := pods[ids[2]]; p == nil || p.Spec.NodeName != node(1) {
			t.Errorf("the third task's pod = %v, want on %s, uncordoned", p, node(1))
		}

		// Node 1 goes NotReady (kwok no longer plays its kubelet) and, silent past the limit,
		// is lost: its task is queued again and its pod deleted at once.
		w.notReady(node(1))
		w.untilSilentPast(node(1), 11*time.Minute)
		w.tick()
		w.untilState(ids[2:], models.TaskQueued)
		w.until("the lost node's pod deleted", func() map[int64]*corev1.Pod {
			_, err := cluster.Client.CoreV1().Pods(w.ns).Get(context.Background(), pods[ids[2]].Name, metav1.GetOptions{})
			if !apierrors.IsNotFound(err) {
				return nil
			}
			return map[int64]*corev1.Pod{}
		})
		for _, id := range ids[:2] {
			if task := w.task(id); task.State != models.TaskRunning {
				t.Errorf("task %d on a Ready node = %s after the other's loss, want running", id, task.State)
			}
		}
	})
}

// untilSilentPast moves the clock on by d and waits until the controller has marked every
// node of the pool but silent seen at the new time, silent not: a jump the controller marked
// silent seen in (its informer had not yet had the NotReady) is taken again.
func (w *world) untilSilentPast(silent string, d time.Duration) {
	w.t.Helper()
	for deadline := time.Now().Add(time.Minute); ; {
		at := w.s.Clock().Add(d)
		w.s.SetNow(at)
		for {
			nodes, err := w.s.Store.Nodes(context.Background())
			if err != nil {
				w.t.Fatal(err)
			}
			seen, silentSeen := true, false
			for _, n := range nodes {
				switch {
				case n.Pool != w.pool:
				case n.Hostname == silent:
					silentSeen = !n.LastSeenAt.Before(at)
				case n.LastSeenAt.Before(at):
					seen = false
				}
			}
			if seen && !silentSeen {
				return
			}
			if time.Now().After(deadline) {
				w.t.Fatalf("within a minute the controller never marked the pool's nodes but %s seen at the clock's jump", silent)
			}
			if silentSeen {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// cordon sets the node's spec.unschedulable, as kubectl cordon and uncordon do.
func (w *world) cordon(name string, on bool) {
	w.t.Helper()
	patch := fmt.Sprintf(`{"spec":{"unschedulable":%t}}`, on)
	if _, err := w.cluster.Client.CoreV1().Nodes().Patch(context.Background(), name, types.StrategicMergePatchType, []byte(patch),
		metav1.PatchOptions{}); err != nil {
		w.t.Fatalf("cordon %s: %v", name, err)
	}
}

// notReady takes the node from kwok and sets its Ready condition False, as a kubelet gone
// silent leaves it.
func (w *world) notReady(name string) {
	w.t.Helper()
	ctx := context.Background()
	patch := fmt.Sprintf(`{"metadata":{"labels":{%q:null}}}`, kubetest.ManagedLabel)
	if _, err := w.cluster.Client.CoreV1().Nodes().Patch(ctx, name, types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		w.t.Fatal(err)
	}
	n, err := w.cluster.Client.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
	for i, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			n.Status.Conditions[i].Status, n.Status.Conditions[i].Reason = corev1.ConditionUnknown, "NodeStatusUnknown"
		}
	}
	if _, err := w.cluster.Client.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
		w.t.Fatal(err)
	}
}

// untilNodes waits until the states of the pool's nodes, by host name, satisfy ok.
func (w *world) untilNodes(what string, ok func(map[string]string) bool) {
	w.t.Helper()
	w.until(what, func() map[int64]*corev1.Pod {
		nodes, err := w.s.Store.Nodes(context.Background())
		if err != nil {
			w.t.Fatal(err)
		}
		state := make(map[string]string)
		for _, n := range nodes {
			if n.Pool == w.pool {
				state[n.Hostname] = n.State
			}
		}
		if !ok(state) {
			return nil
		}
		return map[int64]*corev1.Pod{}
	})
}
