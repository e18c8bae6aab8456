package kubetest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Exporter plays dcgm-exporter, with its Kubernetes pod mapping, for the simulated nodes: GET
// /NODE/metrics is the page of node NODE's cards (gpus of them), each labelled with the node
// as Hostname and, when a running pod of the namespace bound to the node holds it, with the
// pod and namespace. As the device plugin would, the cluster gives pods the node's cards from
// the highest index down, pods in name order, each as many as its nvidia.com/gpu limit: so a
// pod's cards are not the cards of the same index Kashi gave its task. A card reads the
// utilization and memory SetUse gave its pod (0 % and 0 MiB otherwise, and for a free card).
// Outside plays pods Kashi did not make, holding a node's cards from the lowest index up.
type Exporter struct {
	// URL is the server's address; a pool's kube_dcgm_url is URL + "/$(NODE_NAME)/metrics".
	URL string

	c         *Cluster
	namespace string
	gpus      int
	mu        sync.Mutex
	use       map[string][2]int64     // by pod: utilization %, memory MiB
	outside   map[string][]outsidePod // by node
}

// outsidePod is a pod of someone else's on a node (Exporter.Outside).
type outsidePod struct {
	namespace, pod string
	cards          int
}

// Outside makes cards of node's cards read as held by pod of namespace, a pod Kashi did not
// make, at util % and memMiB each.
func (e *Exporter) Outside(node, namespace, pod string, cards, util int, memMiB int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.outside[node] = append(e.outside[node], outsidePod{namespace, pod, cards})
	e.use[namespace+"/"+pod] = [2]int64{int64(util), memMiB}
}

// StartExporter serves the pages of the nodes' gpus cards until the test ends, mapping the
// pods of namespace.
func (c *Cluster) StartExporter(t testing.TB, namespace string, gpus int) *Exporter {
	t.Helper()
	e := &Exporter{c: c, namespace: namespace, gpus: gpus, use: map[string][2]int64{}, outside: map[string][]outsidePod{}}
	srv := httptest.NewServer(http.HandlerFunc(e.serve))
	t.Cleanup(srv.Close)
	e.URL = srv.URL
	return e
}

// SetUse makes the cards of the pod read util % and memMiB.
func (e *Exporter) SetUse(pod string, util int, memMiB int64) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.use[pod] = [2]int64{int64(util), memMiB}
}

// serve writes the page of the node the path names.
func (e *Exporter) serve(w http.ResponseWriter, r *http.Request) {
	node, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, "/"), "/metrics")
	if !ok || node == "" || strings.Contains(node, "/") {
		http.NotFound(w, r)
		return
	}
	pods, err := e.c.Client.CoreV1().Pods(e.namespace).List(r.Context(), metav1.ListOptions{FieldSelector: "spec.nodeName=" + node})
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	holder := make([]string, e.gpus) // the pod holding each card
	next := e.gpus - 1
	slices.SortFunc(pods.Items, func(a, b corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	for _, p := range pods.Items {
		if p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil || len(p.Spec.Containers) == 0 {
			continue
		}
		q := p.Spec.Containers[0].Resources.Limits[GPUResource]
		for range q.Value() {
			if next >= 0 {
				holder[next] = p.Name
				next--
			}
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	holderNS := make([]string, e.gpus)
	for i, pod := range holder {
		if pod != "" {
			holderNS[i] = e.namespace
		}
	}
	first := 0
	for _, o := range e.outside[node] {
		for range o.cards {
			if first < e.gpus && holder[first] == "" {
				holder[first], holderNS[first] = o.pod, o.namespace
				first++
			}
		}
	}
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	for _, series := range []struct {
		name string
		of   func(use [2]int64) int64
	}{
		{"DCGM_FI_DEV_GPU_UTIL", func(u [2]int64) int64 { return u[0] }},
		{"DCGM_FI_DEV_FB_USED", func(u [2]int64) int64 { return u[1] }},
		{"DCGM_FI_DEV_FB_FREE", func(u [2]int64) int64 { return 81920 - u[1] }},
		{"DCGM_FI_DEV_GPU_TEMP", func(u [2]int64) int64 { return 30 + u[0]/4 }},
		{"DCGM_FI_DEV_POWER_USAGE", func(u [2]int64) int64 { return 60 + 3*u[0] }},
	} {
		fmt.Fprintf(w, "# TYPE %s gauge\n", series.name)
		for i, pod := range holder {
			ns := holderNS[i]
			use := e.use[pod]
			if ns != e.namespace {
				use = e.use[ns+"/"+pod]
			}
			fmt.Fprintf(w, "%s{gpu=\"%d\",UUID=\"GPU-%s-%d\",modelName=\"NVIDIA A100-SXM4-80GB\",Hostname=%q,container=\"\",namespace=%q,pod=%q} %d\n",
				series.name, i, node, i, node, ns, pod, series.of(use))
		}
	}
}
