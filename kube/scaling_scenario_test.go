package kube_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"kashi/api"
	"kashi/fleet"
	"kashi/fleet/sim"
	"kashi/kube"
	"kashi/kube/kubetest"
	"kashi/metrics"
	"kashi/models"
	"kashi/models/modelstest"
	"kashi/scaler"
	"kashi/web/webtest"
)

// TestKubernetesScalingModes runs both scaling modes of Kubernetes pools against a real
// apiserver with kwok's nodes, on SQLite and Postgres, with the real scheduler and scaling
// loops on a fast clock. An A100 pool Kashi sizes through the sim provider (kube_scaling
// provider) and an H100 pool the cluster's autoscaler sizes (the default) have one node of
// the cluster's each, busy with a task; a second task of each spec waits. The cluster-scaled
// pool gets no machine and no intent; its 8 cards of demand are in GET /api/v1/pools and the
// kashi_pool_demand_gpus gauge alike. The provider-scaled pool boots a machine; a kwok node
// whose spec.providerID names it joins (as the cloud's machine would), registers as that
// machine and takes the waiting task's pod; once that task ended and the node stayed unneeded
// past the cooldowns, the node is drained, cordoned in the cluster, and only then its machine
// deleted; the cluster's own node, busy all along, is never touched. A pool setting refused
// names its field.
// The cloud takes a while to delete a machine: its node stays listed through two of the
// controller's syncs after Kashi released it, and must stay removed meanwhile.
func TestKubernetesScalingModes(t *testing.T) {
	cluster := kubetest.Start(t)
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, store *models.Store) {
		ctx := context.Background()
		db := dbOf(t)
		w := bareWorld(t, cluster, store, "k8s-scale-"+db, "default")
		byCluster := "k8s-cluster-" + db
		a100 := map[string]string{"kashi.test/scale": db, "nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "nvidia.com/gpu.memory": "81920"}
		cluster.AddGPUNode(t, db+"-own-a100", 8, a100)
		cluster.AddGPUNode(t, db+"-own-h100", 8, map[string]string{"kashi.test/scale-cluster": db})

		// The sim provider plays the cloud: a machine running joins the cluster as a node
		// naming it; a machine deleted leaves it (the cloud controller manager's part).
		others := "others-" + db // another team's namespace, whose pods the cluster places
		if _, err := cluster.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: others}},
			metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var released []string
		prov := sim.New(sim.Options{Now: w.s.Clock,
			OnRunning: func(m fleet.Machine) {
				cluster.AddMachineNode(t, db+"-boot-"+m.ID, 8, a100, "kwok://zone-a/"+m.ID)
			},
			OnDelete: func(m fleet.Machine) {
				node, err := cluster.Client.CoreV1().Nodes().Get(ctx, db+"-boot-"+m.ID, metav1.GetOptions{})
				// The cloud deleting the machine: two of the controller's syncs see the
				// node still listed (each marks the nodes seen at the clock's new time).
				w.jump(time.Second)
				w.jump(time.Second)
				if state := w.nodeState(db + "-boot-" + m.ID); state != models.NodeRemoved {
					t.Errorf("the released machine's node, still listed while it is deleted, = %s, want removed", state)
				}
				mu.Lock()
				pods, perr := cluster.Client.CoreV1().Pods(others).List(ctx, metav1.ListOptions{})
				var left []string
				for _, p := range pods.Items {
					left = append(left, p.Name)
				}
				released = append(released, fmt.Sprintf("%s cordoned %t, other pods left %v %v", m.ID, err == nil && node.Spec.Unschedulable, left, perr))
				mu.Unlock()
				if err := cluster.Client.CoreV1().Nodes().Delete(ctx, db+"-boot-"+m.ID, metav1.DeleteOptions{}); err != nil {
					t.Errorf("delete the node of machine %s: %v", m.ID, err)
				}
			}})

		k8s := fmt.Sprintf(`"backend":"kubernetes","kubeconfig":%q,"require_image":true,"gpus_per_node":8`, cluster.Kubeconfig)
		for body, field := range map[string]string{
			`{"provider":"static","spec":"H100-80G",` + k8s + `,"kube_node_selector":"a=b","enabled":true,"max_nodes":2}`: "enabled",
			`{"provider":"static","spec":"H100-80G",` + k8s + `,"kube_node_selector":"a=b","kube_scaling":"keda"}`:        "kube_scaling",
			`{"provider":"static","spec":"H100-80G",` + k8s + `,"kube_node_selector":"a=b","kube_scaling":"provider"}`:    "provider",
		} {
			if resp := w.s.Post("/api/v1/pools/refused-"+db, body); resp.Code != http.StatusUnprocessableEntity || !strings.Contains(resp.Body.String(), `"field":"`+field+`"`) {
				t.Errorf("POST a pool %s = %d %s, want 422 naming %s", body, resp.Code, resp.Body, field)
			}
		}
		for name, body := range map[string]string{
			w.pool: `{"provider":"sim","spec":"A100-80G",` + k8s + `,"kube_node_selector":"kashi.test/scale=` + db + `","kube_scaling":"provider",` +
				`"enabled":true,"max_nodes":2,"scale_up_delay_s":60,"unneeded_s":60,"cooldown_up_s":60,"cooldown_down_s":60,"memory_low_pct":100}`,
			byCluster: `{"provider":"sim","spec":"H100-80G",` + k8s + `,"kube_node_selector":"kashi.test/scale-cluster=` + db + `"}`,
		} {
			if resp := w.s.Post("/api/v1/pools/"+name, body); resp.Code != http.StatusOK {
				t.Fatalf("POST /api/v1/pools/%s = %d %s", name, resp.Code, resp.Body)
			}
		}
		sc := scaler.New(store, scaler.Config{Providers: map[string]fleet.Provider{"sim": prov}, Cluster: "test", Queue: w.sched.QueuePlan,
			Cordon:         func(ctx context.Context, pool, node string) error { return w.ctl.Cordon(ctx, pool, node) },
			NodeStaleAfter: 2 * time.Minute, Now: w.s.Clock, Logger: quiet})
		scale := func() {
			t.Helper()
			if _, err := sc.RunOnce(ctx, w.s.Clock()); err != nil {
				t.Fatal(err)
			}
		}
		w.start(store, kube.Config{})
		w.untilFleet("the cluster's own nodes", func(ns []models.NodeGPUs) bool { return len(ns) == 2 })

		busyA, waitA := w.submitSpec("busy-a100", "A100-80G"), w.submitSpec("wait-a100", "A100-80G")
		busyH, waitH := w.submitSpec("busy-h100", "H100-80G"), w.submitSpec("wait-h100", "H100-80G")
		w.tick()
		w.untilState([]int64{busyA, busyH}, models.TaskRunning)

		// The demand has waited past the scale-up delay: the A100 pool boots a machine.
		w.jump(90 * time.Second)
		scale()
		w.untilFleet("the booted machine's node registered as the machine", func(ns []models.NodeGPUs) bool {
			return slices.ContainsFunc(ns, func(n models.NodeGPUs) bool { return n.Hostname == db+"-boot-sim-0001" && n.MachineID == "sim-0001" })
		})
		scale()
		if ms := machines(t, store, w.pool); ms != "sim-0001:ready" {
			t.Errorf("the A100 pool's machines = %q, want sim-0001 ready on its node", ms)
		}
		if ms := machines(t, store, byCluster); ms != "" {
			t.Errorf("the cluster-scaled pool's machines = %q, want none", ms)
		}
		if ms, err := prov.List(ctx, byCluster); err != nil || len(ms) > 0 {
			t.Errorf("the provider's machines of the cluster-scaled pool = %v, %v; want none", ms, err)
		}
		pools := map[string]api.Pool{}
		for _, p := range webtest.Decode[[]api.Pool](t, w.s.Get("/api/v1/pools")) {
			pools[p.Name] = p
		}
		if p := pools[byCluster]; p.DemandGPUs != 8 || p.Size != 1 || len(p.Booting) > 0 || len(p.Skips) != 1 || p.Skips[0].Reason != string(scaler.ReasonClusterScales) {
			t.Errorf("GET /api/v1/pools: the cluster-scaled pool = demand %d, size %d, booting %v, skips %+v; want 8 cards, 1 node, none, the cluster scales",
				p.DemandGPUs, p.Size, p.Booting, p.Skips)
		}
		gauge := metrics.New(store, w.sched.Queue, metrics.Config{Now: w.s.Clock, Logger: quiet})
		want := "# HELP kashi_pool_demand_gpus GPUs of ready demand waiting for the pool.\n# TYPE kashi_pool_demand_gpus gauge\n"
		for _, name := range []string{byCluster, w.pool} {
			want += fmt.Sprintf("kashi_pool_demand_gpus{pool=%q} %d\n", name, pools[name].DemandGPUs)
		}
		if err := testutil.CollectAndCompare(gauge, strings.NewReader(want), "kashi_pool_demand_gpus"); err != nil {
			t.Errorf("the gauge against the API's demand_gpus: %v", err)
		}

		// The waiting A100 task runs on the booted machine's node, then ends.
		w.tick()
		pod := w.until("the waiting task's pod on the booted node", func() map[int64]*corev1.Pod {
			if p := w.pods()[waitA]; p != nil && p.Spec.NodeName == db+"-boot-sim-0001" {
				return map[int64]*corev1.Pod{waitA: p}
			}
			return nil
		})[waitA]
		w.untilState([]int64{waitA}, models.TaskRunning)
		cluster.FinishPod(t, w.ns, pod.Name, 0)
		w.untilState([]int64{waitA}, models.TaskSucceeded)

		// Another team's pod and a DaemonSet's land on the node meanwhile.
		for name, owners := range map[string][]metav1.OwnerReference{
			"notebook": nil,
			"exporter": {{APIVersion: "apps/v1", Kind: "DaemonSet", Name: "exporter", UID: "ds-uid", Controller: new(true)}},
		} {
			p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: others, OwnerReferences: owners, Labels: map[string]string{"app": name}},
				Spec: corev1.PodSpec{NodeName: db + "-boot-sim-0001", Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
			if _, err := cluster.Client.CoreV1().Pods(others).Create(ctx, p, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}

		// The other team's pod has a disruption budget that refuses any eviction at first.
		budget := &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "notebook", Namespace: others},
			Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: new(intstr.FromInt32(1)),
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "notebook"}}}}
		if _, err := cluster.Client.PolicyV1().PodDisruptionBudgets(others).Create(ctx, budget, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}

		// Unneeded past the cooldowns: drained, then cordoned; the other team's pod is
		// evicted once its budget allows, and the machine released once the pod is gone.
		for tick := 1; ; tick++ {
			w.jump(90 * time.Second)
			scale()
			mu.Lock()
			done := len(released) > 0
			mu.Unlock()
			switch {
			case done && tick <= 4:
				t.Fatalf("the machine released at tick %d, while the other team's pod's budget refused its eviction", tick)
			case done:
			case tick == 4:
				if err := cluster.Client.PolicyV1().PodDisruptionBudgets(others).Delete(ctx, "notebook", metav1.DeleteOptions{}); err != nil {
					t.Fatal(err)
				}
			case tick == 10:
				t.Fatal("no machine released after 10 ticks of the scaling loop")
			}
			if done {
				break
			}
		}
		if !slices.Equal(released, []string{"sim-0001 cordoned true, other pods left [exporter] <nil>"}) {
			t.Errorf("machines released = %v, want sim-0001, its node cordoned and the other team's pod evicted first", released)
		}
		if ms, err := prov.List(ctx, w.pool); err != nil || len(ms) > 0 {
			t.Errorf("the provider's machines = %v, %v; want none left", ms, err)
		}
		if task := w.task(busyA); task.State != models.TaskRunning {
			t.Errorf("the task on the cluster's own A100 node = %s, want running still", task.State)
		}
		if task := w.task(waitH); task.State != models.TaskQueued {
			t.Errorf("the waiting H100 task = %s, want queued: nothing is booted for the cluster-scaled pool", task.State)
		}
		if ms := machines(t, store, w.pool); ms != "" {
			t.Errorf("the A100 pool's machines after the release = %q, want none", ms)
		}
	})
}

// submitSpec posts a task of 8 cards of spec through the API and returns its id.
func (w *world) submitSpec(name, spec string) int64 {
	resp := w.s.Post("/api/v1/tasks", webtest.TaskBody(map[string]string{"name": strconv.Quote(name), "gpus": "8",
		"spec": strconv.Quote(spec), "image": `"registry.example.com/train:1"`, "command": `["sh","-c","train"]`}))
	if resp.Code != http.StatusCreated && resp.Code != http.StatusOK {
		w.t.Fatalf("POST /api/v1/tasks %s = %d %s", name, resp.Code, resp.Body)
	}
	return webtest.Decode[api.Task](w.t, resp).ID
}

// jump moves the server's clock on by d and waits until the controller has marked every
// registered node the cluster lists as Ready seen at the new time, as its resync does.
func (w *world) jump(d time.Duration) {
	w.t.Helper()
	at := w.s.Clock().Add(d)
	w.s.SetNow(at)
	start := time.Now()
	w.untilFleet("the nodes seen past the clock's jump", func(ns []models.NodeGPUs) bool {
		if i := slices.IndexFunc(ns, func(n models.NodeGPUs) bool { return n.State == models.NodeLost }); i >= 0 {
			w.t.Fatalf("node %s is lost: no clock's jump makes it seen", ns[i].Hostname)
		}
		stale := slices.ContainsFunc(ns, func(n models.NodeGPUs) bool { return n.LastSeenAt.Before(at) })
		if stale && time.Since(start) > 10*time.Second {
			w.t.Logf("after %s, nodes not seen at %s yet: %+v", time.Since(start).Round(time.Second), at, ns)
			start = time.Now()
		}
		return !stale
	})
}

// nodeState is the state of the pool's node of hostname, removed included ("" when none).
func (w *world) nodeState(hostname string) string {
	w.t.Helper()
	ctx := context.Background()
	all, err := w.s.Store.Nodes(ctx)
	if err != nil {
		w.t.Fatal(err)
	}
	if i := slices.IndexFunc(all, func(n models.NodeGPUs) bool { return n.Hostname == hostname }); i >= 0 {
		return all[i].State
	}
	cp, err := w.s.Store.ConfiguredPoolByName(ctx, w.pool)
	if err != nil {
		w.t.Fatal(err)
	}
	removed, err := w.s.Store.RemovedNodes(ctx, cp.ID, []string{hostname})
	if err != nil {
		w.t.Fatal(err)
	}
	return removed[hostname].State
}

// untilFleet waits until ok holds of the registered nodes (not removed) and returns them.
func (w *world) untilFleet(what string, ok func([]models.NodeGPUs) bool) []models.NodeGPUs {
	w.t.Helper()
	var out []models.NodeGPUs
	w.until(what, func() map[int64]*corev1.Pod {
		all, err := w.s.Store.Nodes(context.Background())
		if err != nil {
			w.t.Fatal(err)
		}
		out = out[:0]
		for _, n := range all {
			if n.State != models.NodeRemoved {
				out = append(out, n)
			}
		}
		if !ok(out) {
			return nil
		}
		return map[int64]*corev1.Pod{}
	})
	return out
}

// machines lists the named pool's live machine intents as "id:state".
func machines(t *testing.T, store *models.Store, pool string) string {
	t.Helper()
	cp, err := store.ConfiguredPoolByName(context.Background(), pool)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := store.Machines(context.Background(), cp.ID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range ms {
		out = append(out, m.ProviderID+":"+m.State)
	}
	return strings.Join(out, " ")
}
