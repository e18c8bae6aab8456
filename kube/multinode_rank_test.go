package kube

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"kashi/models"
)

// TestPodNameAcrossNodes: a task of one node keeps its pod's name; each rank of a task across
// nodes has its own, and the rank-0 pod's name is a DNS label (its Service takes it) however
// long the pool's name and the task's id.
func TestPodNameAcrossNodes(t *testing.T) {
	pc := &poolController{podPrefix: dnsLabel("train-" + strings.Repeat("x", 60))}
	one := models.Assignment{TaskID: 12, Attempt: 2, NNodes: 1}
	if got, want := pc.podName(one), "kashi-"+pc.podPrefix+"-12-2"; got != want {
		t.Errorf("podName(one node) = %q, want %q", got, want)
	}
	for _, id := range []int64{12, 1<<62 + 7} {
		a := models.Assignment{TaskID: id, Attempt: 3, NNodes: 4, NodeRank: 0}
		rank0 := pc.podName(a)
		if errs := validation.IsDNS1035Label(rank0); len(errs) > 0 || !strings.HasSuffix(rank0, "-rank-0") {
			t.Errorf("podName(task %d, rank 0) = %q: %v; want a DNS label ending -rank-0", id, rank0, errs)
		}
		a.NodeRank = 3
		if got := pc.podName(a); got != strings.TrimSuffix(rank0, "0")+"3" {
			t.Errorf("podName(task %d, rank 3) = %q; rank 0's is %q", id, got, rank0)
		}
	}
}

// TestWithRendezvous: a rank's spec env names the rank-0 pod's Service as its master
// (localhost for a task of one node) with torchrun's names and the KASHI_ ones; a torchrun
// name the task's own env sets is left to it (its Secret's), a KASHI_ one is not.
func TestWithRendezvous(t *testing.T) {
	pc := &poolController{podPrefix: "a100", namespace: "jobs"}
	a := models.Assignment{TaskID: 7, Attempt: 1, NNodes: 2, NodeRank: 1, WorldSize: 16, Rank: 8, MasterAddr: "gpu-1",
		MasterPort: 29507, Env: map[string]string{"SEED": "1", "MASTER_PORT": "1234", "KASHI_RANK": "99"}}
	env := func(a models.Assignment) map[string]string {
		out := map[string]string{}
		for _, kv := range specEnv(pc.withRendezvous(a)) {
			k, v, _ := strings.Cut(kv, "=")
			out[k] = v
		}
		return out
	}
	got := env(a)
	want := map[string]string{"MASTER_ADDR": "kashi-a100-7-1-rank-0.jobs.svc", "NNODES": "2", "NODE_RANK": "1",
		"KASHI_MASTER_ADDR": "kashi-a100-7-1-rank-0.jobs.svc", "KASHI_MASTER_PORT": "29507", "KASHI_NNODES": "2",
		"KASHI_NODE_RANK": "1", "KASHI_RANK": "8", "KASHI_WORLD_SIZE": "16"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the spec env of rank 1 of 2 (-want +got):\n%s", diff)
	}
	a.NNodes, a.NodeRank = 1, 0
	if got := env(a); got["MASTER_ADDR"] != "localhost" || got["KASHI_MASTER_ADDR"] != "localhost" {
		t.Errorf("the spec env of a task of one node = %v; want its master localhost", got)
	}
}

// TestRanksStarted: a task across nodes has started once a pod of each rank runs or has
// ended; a pending rank, a missing one or one being deleted holds it back.
func TestRanksStarted(t *testing.T) {
	pod := func(rank string, phase corev1.PodPhase) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{labelNodeRank: rank}}, Status: corev1.PodStatus{Phase: phase}}
	}
	deleting := pod("1", corev1.PodRunning)
	deleting.DeletionTimestamp = &metav1.Time{}
	for name, tc := range map[string]struct {
		pods []*corev1.Pod
		want bool
	}{
		"all run":           {[]*corev1.Pod{pod("0", corev1.PodRunning), pod("1", corev1.PodRunning)}, true},
		"one ended":         {[]*corev1.Pod{pod("0", corev1.PodRunning), pod("1", corev1.PodSucceeded)}, true},
		"one pending":       {[]*corev1.Pod{pod("0", corev1.PodRunning), pod("1", corev1.PodPending)}, false},
		"one missing":       {[]*corev1.Pod{pod("0", corev1.PodRunning)}, false},
		"one being deleted": {[]*corev1.Pod{pod("0", corev1.PodRunning), deleting}, false},
		"one rank twice":    {[]*corev1.Pod{pod("0", corev1.PodRunning), pod("0", corev1.PodRunning)}, false},
	} {
		t.Run(name, func(t *testing.T) {
			if got := ranksStarted(tc.pods, 2); got != tc.want {
				t.Errorf("ranksStarted(%s) = %t, want %t", name, got, tc.want)
			}
		})
	}
}
