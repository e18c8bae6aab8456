package kube

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	"kashi/models"
)

// A task across N nodes of a Kubernetes pool runs as one pod per node, each bound to the node
// and holding the cards the scheduler gave its rank there, as the agents of N machines would
// run it: each node's assignment carries its rank (the store's shape of the task), so each
// node's sync makes its rank's pod as for a task of one node. The pods' names end in
// "-rank-R"; the rank-0 pod's name is also the name of a headless Service (rendezvous) that
// selects that pod alone, so MASTER_ADDR is a DNS name that resolves to rank 0 wherever it
// runs. The Service goes with the rank-0 pod: Kashi deletes it whenever it deletes that pod
// (a stop, a node gone, the retention's end), and it is owned by the pod, so the cluster's
// garbage collector deletes it should the pod go otherwise. A multi-node task runs once
// every rank's pod has started (allRanksStarted); its ending is the store's: a failing rank
// asks the others to stop (their pods are deleted), and the task ends with that rank's
// reason and exit code.

const (
	// labelNodeRank is the node rank of a task's pod on the pool, on the pods of tasks across
	// nodes only.
	labelNodeRank = "kashi.io/node-rank"
	// rankSuffix ends the name of each pod of a task across nodes, before its node rank.
	rankSuffix = "-rank-"
	// byTask indexes the pods by their task's attempt (taskKey).
	byTask = "task"
	// maxServiceName is the longest name a Service may have (a DNS label).
	maxServiceName = 63
)

// podName is the name of a's pod on the pool: kashi-POOL-TASK-ATTEMPT, the pool's name made a
// DNS label (see dnsLabel), so that two pools' tasks of one id (two Kashi databases, one
// namespace) do not meet; for a task across nodes the node rank follows ("-rank-R"), with the
// pool's part cut so that the rank-0 pod's name, which its rendezvous Service takes, is a
// DNS label.
func (pc *poolController) podName(a models.Assignment) string {
	tail := "-" + strconv.FormatInt(a.TaskID, 10) + "-" + strconv.Itoa(max(a.Attempt, 1))
	if a.NNodes <= 1 {
		return "kashi-" + pc.podPrefix + tail
	}
	room := maxServiceName - len("kashi-") - len(tail) - len(rankSuffix+"0")
	prefix := strings.TrimRight(pc.podPrefix[:max(0, min(len(pc.podPrefix), room))], "-")
	return "kashi-" + prefix + tail + rankSuffix + strconv.Itoa(a.NodeRank)
}

// withRendezvous is a as its pod runs it: its rendezvous is the pod of rank 0 (for a task of
// one node, the pod itself: localhost). applyPod names it, and the rest of the task's shape,
// in the pod's env (agent.KashiEnv, and agent.TorchrunEnv where the task's own env does not
// set those names, as on an agent's node).
func (pc *poolController) withRendezvous(a models.Assignment) models.Assignment {
	if a.NNodes == 0 {
		return a
	}
	a.MasterAddr = "localhost"
	if a.NNodes > 1 {
		rank0 := a
		rank0.NodeRank = 0
		a.MasterAddr = pc.podName(rank0) + "." + pc.namespace + ".svc"
	}
	return a
}

// rankLabels adds the node rank of a's pod to its labels, for a task across nodes.
func rankLabels(lbl map[string]string, a models.Assignment) {
	if a.NNodes > 1 {
		lbl[labelNodeRank] = strconv.Itoa(a.NodeRank)
	}
}

// applyRendezvous makes, by server-side apply, the headless Service of a task across nodes
// once its rank-0 pod is made: named as the pod, selecting it by its labels, its
// address published before the pod is ready (ranks meet before any is), the rendezvous
// port named, owned by the pod. Other pods have none.
func (pc *poolController) applyRendezvous(ctx context.Context, a models.Assignment, pod *corev1.Pod) error {
	if a.NNodes <= 1 || a.NodeRank != 0 {
		return nil
	}
	svc := corev1ac.Service(pod.Name, pc.namespace).WithLabels(pod.Labels).WithOwnerReferences(ownedBy(pod)).
		WithSpec(corev1ac.ServiceSpec().WithClusterIP(corev1.ClusterIPNone).WithPublishNotReadyAddresses(true).
			WithSelector(pod.Labels).
			WithPorts(corev1ac.ServicePort().WithName("rendezvous").WithProtocol(corev1.ProtocolTCP).WithPort(int32(a.MasterPort))))
	if _, err := pc.client.CoreV1().Services(pc.namespace).Apply(ctx, svc, metav1.ApplyOptions{FieldManager: fieldManager, Force: true}); err != nil {
		return fmt.Errorf("apply service %s: %w", pod.Name, err)
	}
	return nil
}

// deleteRendezvous deletes the Service of the pod named name when it is the rank-0 pod of a
// task across nodes; one already gone is fine.
func (pc *poolController) deleteRendezvous(ctx context.Context, name string) error {
	if !strings.HasSuffix(name, rankSuffix+"0") {
		return nil
	}
	err := pc.client.CoreV1().Services(pc.namespace).Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete service %s: %w", name, err)
	}
	return nil
}

// allRanksStarted reports whether the pod of every node of a's task has started (runs, or
// ran and ended), as the pool's pods show: a task across nodes is running once all its ranks
// are. A task of one node has started when its pod runs.
func (pc *poolController) allRanksStarted(a models.Assignment) bool {
	if a.NNodes <= 1 {
		return true
	}
	objs, err := pc.pods.ByIndex(byTask, taskKey(a.TaskID, a.Attempt))
	if err != nil {
		return false
	}
	pods := make([]*corev1.Pod, len(objs))
	for i, o := range objs {
		pods[i] = o.(*corev1.Pod)
	}
	return ranksStarted(pods, a.NNodes)
}

// ranksStarted reports whether pods, those of one task's attempt, have a started pod (not
// being deleted) of each of the nnodes node ranks.
func ranksStarted(pods []*corev1.Pod, nnodes int) bool {
	started := make(map[string]bool, nnodes)
	for _, p := range pods {
		switch p.Status.Phase {
		case corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed:
			if p.DeletionTimestamp == nil {
				started[p.Labels[labelNodeRank]] = true
			}
		}
	}
	for r := range nnodes {
		if !started[strconv.Itoa(r)] {
			return false
		}
	}
	return true
}

// podTask is the byTask index of a pod: its task's attempt, from its labels.
func podTask(obj any) ([]string, error) {
	p := obj.(*corev1.Pod)
	return []string{p.Labels[labelTask] + "/" + p.Labels[labelAttempt]}, nil
}

// taskKey is the byTask index value of a task's attempt.
func taskKey(task int64, attempt int) string {
	return strconv.FormatInt(task, 10) + "/" + strconv.Itoa(max(attempt, 1))
}
