package kube_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kashi/api"
	"kashi/kube"
	"kashi/kube/kubetest"
	"kashi/models"
	"kashi/models/modelstest"
	"kashi/scheduler"
	"kashi/web/webtest"
)

// TestKubernetesPool runs a Kubernetes pool end to end against a real apiserver with kwok's
// simulated nodes, on SQLite and on Postgres: 8 nodes × 8 GPUs register as the pool's; tasks
// submitted through the API are placed by the scheduler and appear as pods bound to the
// nodes it chose, with their image, command, env and cards; pods that end end their tasks
// (done or failed with the exit code, allocations closed at the clock's now); a cancel
// deletes the pod; a node deleted from the cluster queues its task again, which runs on
// another node. (Tasks across nodes: TestKubernetesMultiNode.)
func TestKubernetesPool(t *testing.T) {
	cluster := kubetest.Start(t)
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, store *models.Store) {
		db := dbOf(t)
		w := newWorld(t, cluster, store, db)

		ids := make([]int64, 10)
		for i := range ids {
			ids[i] = w.submit(fmt.Sprintf("train-%d", i), 4)
		}
		w.tick()
		hosts, err := store.TaskHosts(context.Background(), ids)
		if err != nil {
			t.Fatal(err)
		}
		pods := w.until("every task's pod", func() map[int64]*corev1.Pod {
			ps := w.pods()
			if len(ps) < len(ids) {
				return nil
			}
			return ps
		})
		for _, id := range ids {
			p := pods[id]
			if got, want := p.Spec.NodeName, hosts[id]; len(want) != 1 || got != want[0] {
				t.Errorf("task %d's pod is bound to %q; Kashi placed it on %v", id, got, want)
			}
			if got := p.Spec.Containers[0].Resources.Limits[kubetest.GPUResource]; got.Value() != 4 {
				t.Errorf("task %d's pod's nvidia.com/gpu limit = %s, want 4", id, got.String())
			}
			if p.Labels["kashi.io/project"] != "vision" || p.Spec.Containers[0].Image != "registry.example.com/train:1" ||
				!slices.Equal(p.Spec.Containers[0].Command, []string{"sh", "-c", "train"}) {
				t.Errorf("task %d's pod = labels %v, image %q, command %q", id, p.Labels, p.Spec.Containers[0].Image, p.Spec.Containers[0].Command)
			}
			if len(p.ManagedFields) == 0 || p.ManagedFields[0].Manager != "kashi" || p.ManagedFields[0].Operation != metav1.ManagedFieldsOperationApply {
				t.Errorf("task %d's pod's managed fields = %+v, want applied by kashi", id, p.ManagedFields)
			}
		}
		w.untilWhole(pods[ids[0]])
		sec, err := cluster.Client.CoreV1().Secrets(w.ns).Get(context.Background(), pods[ids[0]].Name, metav1.GetOptions{})
		if err != nil || string(sec.Data["SEED"]) != "7" || len(sec.OwnerReferences) != 1 || sec.OwnerReferences[0].UID != pods[ids[0]].UID {
			t.Errorf("the env Secret of task %d = %+v, %v; want SEED=7, owned by its pod", ids[0], sec, err)
		}
		if ef := pods[ids[0]].Spec.Containers[0].EnvFrom; len(ef) != 1 || ef[0].SecretRef == nil || ef[0].SecretRef.Name != pods[ids[0]].Name {
			t.Errorf("task %d's pod's envFrom = %+v, want its Secret", ids[0], ef)
		}
		w.untilState(ids, models.TaskRunning)

		start := w.s.Clock()
		w.s.SetNow(start.Add(time.Hour))
		for i, id := range ids[:7] {
			cluster.FinishPod(t, w.ns, pods[id].Name, min(i/6*3, 3)) // the seventh exits 3
		}
		w.untilState(ids[:6], models.TaskSucceeded)
		w.untilState(ids[6:7], models.TaskFailed)
		for _, id := range ids[:7] {
			cards, err := store.TaskCards(context.Background(), id)
			if err != nil || len(cards) != 4 {
				t.Fatalf("TaskCards(%d) = %v, %v", id, cards, err)
			}
			for _, c := range cards {
				if c.EndedAt == nil || c.EndedAt.Sub(c.StartedAt) != time.Hour {
					t.Errorf("task %d's allocation of %s = %v to %v, want one hour", id, c.UUID, c.StartedAt, c.EndedAt)
				}
			}
		}
		if task := w.task(ids[6]); task.ExitCode == nil || *task.ExitCode != 3 {
			t.Errorf("the task whose pod exited 3 = %s %q, exit code %v", task.State, task.Reason, task.ExitCode)
		}

		// A cancel deletes the pod; its task ends cancelled.
		if resp := w.s.Post("/api/v1/tasks/"+strconv.FormatInt(ids[7], 10)+"/cancel", ""); resp.Code != http.StatusOK && resp.Code != http.StatusAccepted {
			t.Fatalf("cancel task %d = %d %s", ids[7], resp.Code, resp.Body)
		}
		w.untilState(ids[7:8], models.TaskCancelled)
		w.until("the canceled task's pod deleted", func() map[int64]*corev1.Pod {
			if _, ok := w.pods()[ids[7]]; ok {
				return nil
			}
			return map[int64]*corev1.Pod{}
		})

		// A node deleted mid-task: its task is queued again and runs on another node.
		lostOn := pods[ids[8]].Spec.NodeName
		if err := cluster.Client.CoreV1().Nodes().Delete(context.Background(), lostOn, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		w.untilState(ids[8:9], models.TaskQueued)
		w.tick()
		again := w.until("the requeued task's second pod", func() map[int64]*corev1.Pod {
			p := w.pods()[ids[8]]
			if p == nil || p.Labels["kashi.io/attempt"] != "2" {
				return nil
			}
			return map[int64]*corev1.Pod{ids[8]: p}
		})
		if again[ids[8]].Spec.NodeName == lostOn {
			t.Errorf("the requeued task's pod is on the node deleted, %s", lostOn)
		}
		// The KASHI_ variables are in the pod's spec, where they win over its Secret's.
		if env := again[ids[8]].Spec.Containers[0].Env; !slices.Contains(env, corev1.EnvVar{Name: "KASHI_ATTEMPT", Value: "2"}) {
			t.Errorf("the second attempt's pod's env = %+v, want KASHI_ATTEMPT=2", env)
		}
	})
}

// world is a Kubernetes pool of 8 kwok nodes of 8 A100 cards on a test server, with the real
// scheduler loop (ticked by the test) and the pool's controller running.
type world struct {
	t       *testing.T
	s       *webtest.Server
	cluster *kubetest.Cluster
	sched   *scheduler.Loop
	pool    string
	// ns is the namespace of the pool's pods.
	ns string
	// ahead is how far the controller's wall clock (the cluster's, which ended pods' times
	// are on) runs ahead of the real one.
	ahead atomic.Int64
	// ctl is the controller start started last.
	ctl *kube.Controller
}

func newWorld(t *testing.T, cluster *kubetest.Cluster, store *models.Store, db string) *world {
	w := setUpWorld(t, cluster, store, db)
	w.start(store, kube.Config{})
	w.untilRegistered()
	return w
}

// bareWorld is a test server over store, with project vision and the scheduler loop, whose
// pool is named pool; no node, pool or controller yet.
func bareWorld(t *testing.T, cluster *kubetest.Cluster, store *models.Store, pool, ns string) *world {
	s := webtest.NewServerOn(t, store, webtest.TestCfg())
	s.Projects("vision")
	return &world{t: t, s: s, cluster: cluster, pool: pool, ns: ns,
		sched: scheduler.NewLoop(store, scheduler.LoopConfig{Policy: scheduler.DefaultPolicy(time.UTC), NodeStaleAfter: 2 * time.Minute,
			NodeLostAfter: 10 * time.Minute, Now: s.Clock, Logger: quiet})}
}

// setUpWorld makes the pool's nodes and saves the pool; no controller runs yet.
func setUpWorld(t *testing.T, cluster *kubetest.Cluster, store *models.Store, db string) *world {
	return setUpWorldAs(t, cluster, store, db, cluster.Kubeconfig, "default")
}

// setUpWorldAs is setUpWorld with the pool reaching the cluster through kubeconfig, whose
// namespace is ns.
func setUpWorldAs(t *testing.T, cluster *kubetest.Cluster, store *models.Store, db, kubeconfig, ns string) *world {
	w := bareWorld(t, cluster, store, "k8s-"+db, ns)
	s := w.s
	for i := range 8 {
		cluster.AddGPUNode(t, fmt.Sprintf("%s-gpu-%d", db, i), 8, map[string]string{"kashi.test/pool": db,
			"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "nvidia.com/gpu.memory": "81920"})
	}
	body := fmt.Sprintf(`{"provider":"static","spec":"A100-80G","gpus_per_node":8,"backend":"kubernetes","kube_node_selector":"kashi.test/pool=%s","kubeconfig":%q,"require_image":true}`,
		db, kubeconfig)
	if resp := s.Post("/api/v1/pools/"+w.pool, body); resp.Code != http.StatusOK {
		t.Fatalf("POST /api/v1/pools/%s = %d %s", w.pool, resp.Code, resp.Body)
	}
	return w
}

// dbOf is the database of a modelstest.ForEachDB subtest ("sqlite", "postgres"), which
// names its pool and nodes.
func dbOf(t *testing.T) string {
	return strings.ToLower(t.Name()[strings.LastIndex(t.Name(), "/")+1:])
}

// quiet is the controllers' logger in tests.
var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// start starts a controller of the world's pools over store, with cfg's identity and lease;
// it returns its stop, which the test's end calls too.
func (w *world) start(store kube.Store, cfg kube.Config) func() {
	cfg.Now, cfg.Logger, cfg.StopGrace, cfg.Resync, cfg.ReadEvery = w.s.Clock, quiet, time.Second, time.Second, 200*time.Millisecond
	cfg.Wall = func() time.Time { return time.Now().Add(time.Duration(w.ahead.Load())) }
	ctl := kube.New(store, cfg)
	w.ctl = ctl
	ctx, cancel := context.WithCancel(context.Background())
	stop := func() { cancel(); ctl.Stop() }
	w.t.Cleanup(stop)
	if err := ctl.Tick(ctx); err != nil {
		w.t.Fatal(err)
	}
	return stop
}

// untilRegistered waits until the pool's 8 nodes of 8 cards are registered.
func (w *world) untilRegistered() {
	w.t.Helper()
	w.until("8 nodes of 8 cards registered", func() map[int64]*corev1.Pod {
		nodes, err := w.s.Store.Nodes(context.Background())
		if err != nil {
			w.t.Fatal(err)
		}
		n := 0
		for _, node := range nodes {
			if node.Pool == w.pool && node.State == models.NodeReady && len(node.GPUs) == 8 && node.Spec == "A100-80G" {
				n++
			}
		}
		if n < 8 {
			return nil
		}
		return map[int64]*corev1.Pod{}
	})
}

// submit posts a task of the pool's spec with env SEED=7 through the API and returns its id.
func (w *world) submit(name string, gpus int) int64 {
	return w.submitEnv(name, gpus, `{"SEED":"7"}`)
}

// submitEnv is submit with the task's env, a JSON object.
func (w *world) submitEnv(name string, gpus int, env string) int64 {
	resp := w.s.Post("/api/v1/tasks", webtest.TaskBody(map[string]string{"name": strconv.Quote(name), "gpus": strconv.Itoa(gpus),
		"spec": `"A100-80G"`, "image": `"registry.example.com/train:1"`, "command": `["sh","-c","train"]`, "env": env,
		"max_attempts": "2"}))
	if resp.Code != http.StatusCreated && resp.Code != http.StatusOK {
		w.t.Fatalf("POST /api/v1/tasks %s = %d %s", name, resp.Code, resp.Body)
	}
	return webtest.Decode[api.Task](w.t, resp).ID
}

// tick runs one pass of the scheduler.
func (w *world) tick() {
	w.t.Helper()
	if err := w.sched.Tick(context.Background()); err != nil {
		w.t.Fatal(err)
	}
}

// task reads a task through the API.
func (w *world) task(id int64) api.Task {
	return webtest.Decode[api.Task](w.t, w.s.Get("/api/v1/tasks/"+strconv.FormatInt(id, 10)))
}

// untilState waits until every task of ids is in state.
func (w *world) untilState(ids []int64, state string) {
	w.t.Helper()
	w.until(fmt.Sprintf("tasks %v %s", ids, state), func() map[int64]*corev1.Pod {
		for _, id := range ids {
			if string(w.task(id).State) != state {
				return nil
			}
		}
		return map[int64]*corev1.Pod{}
	})
}

// pods are the pool's task pods (not being deleted) by task id, the latest attempt's.
func (w *world) pods() map[int64]*corev1.Pod {
	list, err := w.cluster.Client.CoreV1().Pods(w.ns).List(context.Background(),
		metav1.ListOptions{LabelSelector: "kashi.io/pool=" + w.pool})
	if err != nil {
		w.t.Fatal(err)
	}
	out := make(map[int64]*corev1.Pod)
	for i := range list.Items {
		p := &list.Items[i]
		id, _ := strconv.ParseInt(p.Labels["kashi.io/task"], 10, 64)
		if p.DeletionTimestamp == nil && (out[id] == nil || p.Labels["kashi.io/attempt"] > out[id].Labels["kashi.io/attempt"]) {
			out[id] = p
		}
	}
	return out
}

// until polls get, the server's clock held, until it returns non-nil, for up to two minutes.
func (w *world) until(what string, get func() map[int64]*corev1.Pod) map[int64]*corev1.Pod {
	w.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if v := get(); v != nil {
			return v
		}
		if time.Now().After(deadline) {
			w.t.Fatalf("waited two minutes for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
