package kube_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"kashi/kube/kubetest"
	"kashi/models"
	"kashi/models/modelstest"
)

// TestKubernetesMultiNode runs tasks across nodes on a Kubernetes pool of 8 kwok nodes × 8
// cards, on SQLite and Postgres, through the HTTP API and the real scheduler: a 2-node and a
// 4-node task run as one pod per node, each bound to the node Kashi gave its rank, with the
// agent's rank environment and MASTER_ADDR the headless Service of its rank-0 pod; both run
// and succeed. A task one of whose ranks exits 3 fails with that rank's reason and code, and
// its other pod and Service are deleted. A cancel deletes every pod and the Service. A node
// deleted under a task queues it again, and its second attempt runs on other nodes. The
// ended pods' Services go with them at the end of their retention.
func TestKubernetesMultiNode(t *testing.T) {
	cluster := kubetest.Start(t)
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, store *models.Store) {
		ctx := context.Background()
		w := newWorld(t, cluster, store, dbOf(t))
		two, four, failing := w.submit("two", 16), w.submit("four", 32), w.submit("failing", 16)
		ranks := map[int64][]*corev1.Pod{two: w.untilRanks(two, 1, 2), four: w.untilRanks(four, 1, 4), failing: w.untilRanks(failing, 1, 2)}
		hosts, err := store.TaskHosts(ctx, []int64{two, four, failing})
		if err != nil {
			t.Fatal(err)
		}
		for id, pods := range ranks {
			w.checkRanks(id, hosts[id], pods)
		}
		w.untilState([]int64{two, four, failing}, models.TaskRunning)

		// One rank fails: the task fails with its reason and code; the other rank's pod goes,
		// the failed pod stays for its log (with its Service, being rank 0's, until its
		// retention ends). (Rank 0 fails: the test's clock stands still, and the store orders
		// exits at one instant by node, so the rank stopped after it would sort first.)
		cluster.FinishPod(t, w.ns, ranks[failing][0].Name, 3)
		w.untilState([]int64{failing}, models.TaskFailed)
		task := w.task(failing)
		if want := fmt.Sprintf("node %s (rank 0) exited 3", hosts[failing][0]); task.ExitCode == nil || *task.ExitCode != 3 ||
			!strings.Contains(task.Reason, want) {
			t.Errorf("the task whose rank 0 exited 3 = %s %q, exit code %v; want failed %q, 3", task.State, task.Reason, ptr(task.ExitCode), want)
		}
		w.untilGone("the failed task's rank-1 pod", ranks[failing][1].Name)
		if _, err := cluster.Client.CoreV1().Pods(w.ns).Get(ctx, ranks[failing][0].Name, metav1.GetOptions{}); err != nil {
			t.Errorf("the failed rank's pod: %v, want it kept", err)
		}
		if _, err := cluster.Client.CoreV1().Services(w.ns).Get(ctx, ranks[failing][0].Name, metav1.GetOptions{}); err != nil {
			t.Errorf("the failed rank-0 pod's Service: %v, want it kept with the pod", err)
		}

		// Every rank ends 0 an hour on: the tasks succeed, each card held the hour.
		w.s.SetNow(w.s.Clock().Add(time.Hour))
		for _, id := range []int64{two, four} {
			for _, p := range ranks[id] {
				cluster.FinishPod(t, w.ns, p.Name, 0)
			}
		}
		w.untilState([]int64{two, four}, models.TaskSucceeded)
		for id, n := range map[int64]int{two: 16, four: 32} {
			cards, err := store.TaskCards(ctx, id)
			if err != nil || len(cards) != n {
				t.Fatalf("TaskCards(%d) = %d cards, %v; want %d", id, len(cards), err, n)
			}
			for _, c := range cards {
				if c.EndedAt == nil || c.EndedAt.Sub(c.StartedAt) != time.Hour {
					t.Errorf("task %d's allocation of %s = %v to %v, want one hour", id, c.UUID, c.StartedAt, c.EndedAt)
				}
			}
		}

		// A cancel deletes every pod and the Service.
		cancelled := w.submit("cancelled", 16)
		cpods := w.untilRanks(cancelled, 1, 2)
		w.untilState([]int64{cancelled}, models.TaskRunning)
		if resp := w.s.Post("/api/v1/tasks/"+strconv.FormatInt(cancelled, 10)+"/cancel", ""); resp.Code != http.StatusOK && resp.Code != http.StatusAccepted {
			t.Fatalf("cancel task %d = %d %s", cancelled, resp.Code, resp.Body)
		}
		w.untilState([]int64{cancelled}, models.TaskCancelled)
		w.untilGone("the cancelled task's pods and Service", cpods[0].Name, cpods[1].Name)

		// A node deleted under a task: it is queued again, its second attempt on other nodes.
		lost := w.submit("lost", 16)
		lpods := w.untilRanks(lost, 1, 2)
		w.untilState([]int64{lost}, models.TaskRunning)
		gone := lpods[1].Spec.NodeName
		if err := cluster.Client.CoreV1().Nodes().Delete(ctx, gone, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		w.untilState([]int64{lost}, models.TaskQueued)
		w.untilGone("the lost task's first pods and Service", lpods[0].Name, lpods[1].Name)
		again := w.untilRanks(lost, 2, 2)
		if h, err := store.TaskHosts(ctx, []int64{lost}); err != nil || slices.Contains(h[lost], gone) {
			t.Errorf("the lost task's second attempt is on %v (%v); node %s was deleted", h[lost], err, gone)
		} else {
			w.checkRanks(lost, h[lost], again)
		}
		w.untilState([]int64{lost}, models.TaskRunning)

		// Past their retention the ended pods go, and the Services with them.
		w.ahead.Store(int64(61 * time.Minute))
		w.untilGone("the ended pods and their Services", ranks[two][0].Name, ranks[four][0].Name, ranks[failing][0].Name)
	})
}

// untilRanks runs the scheduler until the task's attempt has a pod of each of its n node ranks
// (none being deleted) and returns them in rank order. (It ticks again while it waits: after
// the clock's jump the nodes are silent until the controller has seen them again.)
func (w *world) untilRanks(id int64, attempt, n int) []*corev1.Pod {
	w.t.Helper()
	var out []*corev1.Pod
	w.until(fmt.Sprintf("task %d's %d pods", id, n), func() map[int64]*corev1.Pod {
		w.tick()
		list, err := w.cluster.Client.CoreV1().Pods(w.ns).List(context.Background(), metav1.ListOptions{
			LabelSelector: fmt.Sprintf("kashi.io/pool=%s,kashi.io/task=%d,kashi.io/attempt=%d", w.pool, id, attempt)})
		if err != nil {
			w.t.Fatal(err)
		}
		out = make([]*corev1.Pod, n)
		for i := range list.Items {
			p := &list.Items[i]
			if r, err := strconv.Atoi(p.Labels["kashi.io/node-rank"]); err == nil && r < n && p.DeletionTimestamp == nil {
				out[r] = p
			}
		}
		if slices.Contains(out, nil) {
			return nil
		}
		return map[int64]*corev1.Pod{}
	})
	return out
}

// checkRanks checks the pods of a task across nodes (in rank order) against the nodes Kashi
// placed it on (hosts, in rank order): each bound to its rank's node with 8 cards, its env
// Secret naming its rank as an agent would, MASTER_ADDR the headless Service that selects the
// rank-0 pod alone.
func (w *world) checkRanks(id int64, hosts []string, pods []*corev1.Pod) {
	w.t.Helper()
	ctx := context.Background()
	if len(hosts) != len(pods) {
		w.t.Fatalf("task %d is placed on %v but has %d pods", id, hosts, len(pods))
	}
	w.untilWhole(pods...)
	n := len(pods)
	svcName := pods[0].Name
	master := svcName + "." + w.ns + ".svc"
	port := strconv.Itoa(int(models.MasterPortBase + id%1000))
	for r, p := range pods {
		if p.Spec.NodeName != hosts[r] || !strings.HasSuffix(p.Name, "-rank-"+strconv.Itoa(r)) {
			w.t.Errorf("task %d's rank %d pod %s is bound to %q; Kashi placed rank %d on %s", id, r, p.Name, p.Spec.NodeName, r, hosts[r])
		}
		if got := p.Spec.Containers[0].Resources.Limits[kubetest.GPUResource]; got.Value() != 8 {
			w.t.Errorf("task %d's rank %d pod's nvidia.com/gpu limit = %s, want 8", id, r, got.String())
		}
		sec, err := w.cluster.Client.CoreV1().Secrets(w.ns).Get(ctx, p.Name, metav1.GetOptions{})
		if err != nil {
			w.t.Fatalf("task %d's rank %d env Secret: %v", id, r, err)
		}
		env := map[string]string{} // as the container gets it: the spec's env over the Secret's
		for k, v := range sec.Data {
			env[k] = string(v)
		}
		for _, e := range p.Spec.Containers[0].Env {
			env[e.Name] = e.Value
		}
		want := map[string]string{"SEED": "7",
			"KASHI_RANK": strconv.Itoa(8 * r), "KASHI_NODE_RANK": strconv.Itoa(r), "KASHI_WORLD_SIZE": strconv.Itoa(8 * n),
			"KASHI_NNODES": strconv.Itoa(n), "KASHI_MASTER_ADDR": master, "KASHI_MASTER_PORT": port,
			"MASTER_ADDR": master, "MASTER_PORT": port, "NNODES": strconv.Itoa(n), "NODE_RANK": strconv.Itoa(r)}
		for k, v := range want {
			if got := env[k]; got != v {
				w.t.Errorf("task %d's rank %d pod's %s = %q, want %q", id, r, k, got, v)
			}
		}
	}
	svc, err := w.cluster.Client.CoreV1().Services(w.ns).Get(ctx, svcName, metav1.GetOptions{})
	if err != nil {
		w.t.Fatalf("task %d's rendezvous Service %s: %v", id, svcName, err)
	}
	if svc.Spec.ClusterIP != corev1.ClusterIPNone || !svc.Spec.PublishNotReadyAddresses || len(svc.Spec.Ports) != 1 ||
		strconv.Itoa(int(svc.Spec.Ports[0].Port)) != port {
		w.t.Errorf("task %d's Service = clusterIP %q, publish not ready %t, ports %+v; want headless, published, port %s",
			id, svc.Spec.ClusterIP, svc.Spec.PublishNotReadyAddresses, svc.Spec.Ports, port)
	}
	if len(svc.OwnerReferences) != 1 || svc.OwnerReferences[0].UID != pods[0].UID {
		w.t.Errorf("task %d's Service's owners = %+v, want its rank-0 pod", id, svc.OwnerReferences)
	}
	all, err := w.cluster.Client.CoreV1().Pods(w.ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		w.t.Fatal(err)
	}
	sel := labels.SelectorFromSet(svc.Spec.Selector)
	for _, p := range all.Items {
		if sel.Matches(labels.Set(p.Labels)) != (p.Name == svcName) {
			w.t.Errorf("task %d's Service selects pod %s: %t; want its rank-0 pod alone", id, p.Name, !(p.Name == svcName))
		}
	}
}

// untilGone waits until the pods named and their Services (those of rank-0 pods) are gone.
func (w *world) untilGone(what string, names ...string) {
	w.t.Helper()
	w.until(what, func() map[int64]*corev1.Pod {
		for _, name := range names {
			if _, err := w.cluster.Client.CoreV1().Pods(w.ns).Get(context.Background(), name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return nil
			}
			if _, err := w.cluster.Client.CoreV1().Services(w.ns).Get(context.Background(), name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				return nil
			}
		}
		return map[int64]*corev1.Pod{}
	})
}

// ptr is what p points at, or "nil".
func ptr(p *int) string {
	if p == nil {
		return "nil"
	}
	return strconv.Itoa(*p)
}
