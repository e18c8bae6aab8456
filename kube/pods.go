package kube

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kashi/models"
)

// syncNode makes the node's pods what Kashi assigned to it, as an agent makes its processes:
// a pod for each task placed there (made once), a running pod confirms its task running, an
// ended pod is its task's exit, and a task asked to stop (or no longer placed there) has its
// pod deleted with the grace period; a stopped task whose pod is gone has exited. The pods
// of a node not the pool's are deleted.
func (pc *poolController) syncNode(ctx context.Context, name string) error {
	objs, err := pc.pods.ByIndex(byNode, name)
	if err != nil {
		return err
	}
	pods := make(map[string]*corev1.Pod, len(objs))
	for _, o := range objs {
		p := o.(*corev1.Pod)
		pods[p.Name] = p
	}
	id, ok := pc.nodeID(name)
	if !ok {
		// A node gone, lost or no longer selected: a kubelet that does not answer would never
		// confirm a graceful delete, so the pods of a node not Ready go at once (it kills them
		// should it come back: they are no longer in the cluster).
		force := true
		if kn, err := pc.nodes.Get(name); err == nil && ready(kn) {
			force = false
		}
		for _, p := range pods {
			if err := pc.deletePod(ctx, p.Name, force); err != nil {
				return err
			}
		}
		return nil
	}
	as, err := pc.store.Assignments(ctx, id)
	if err != nil {
		return err
	}
	now := pc.cfg.Now()
	var running []int64
	for _, a := range as {
		pn := pc.podName(a)
		p := pods[pn]
		delete(pods, pn)
		if p != nil && !ended(p) && !a.Stop && p.DeletionTimestamp == nil && !pc.isWhole(p) {
			if err := pc.completePod(ctx, pc.withRendezvous(a), p); err != nil {
				return err
			}
		}
		switch {
		case p != nil && ended(p):
			if err := pc.report(ctx, id, a, exitReport(p, a)); err != nil {
				return err
			}
		case a.Stop:
			// Deleted (again, should the cache not show a pod made a moment ago), then the
			// exit: the task ends as its stop said.
			if err := pc.deletePod(ctx, pn, false); err != nil {
				return err
			}
			if p == nil {
				if err := pc.report(ctx, id, a, models.TaskReport{State: models.ReportExited, ExitCode: -1, TS: now,
					Attempt: a.Attempt, Message: "pod deleted"}); err != nil {
					return err
				}
			}
		case p == nil:
			task, err := pc.store.TaskByID(ctx, a.TaskID)
			if err != nil {
				return err
			}
			if r, gone := podGone(task, a, now); gone {
				if err := pc.report(ctx, id, a, r); err != nil {
					return err
				}
				continue
			}
			if why := unrunnable(a); why != "" {
				if err := pc.report(ctx, id, a, models.TaskReport{State: models.ReportFailedToStart, TS: now, Attempt: a.Attempt,
					Message: why}); err != nil {
					return err
				}
				continue
			}
			if err := pc.applyPod(ctx, name, pc.withRendezvous(a), task); err != nil {
				return err
			}
		case p.Status.Phase == corev1.PodRunning:
			if pc.allRanksStarted(a) {
				running = append(running, a.TaskID)
			}
		default:
			if why := waitingFailure(p); why != "" {
				if err := pc.report(ctx, id, a, models.TaskReport{State: models.ReportFailedToStart, TS: now, Attempt: a.Attempt,
					Message: why}); err != nil {
					return err
				}
			}
		}
	}
	if err := pc.store.ConfirmRunning(ctx, id, running, now); err != nil {
		return err
	}
	// The pods left run no task placed on the node now: its task ended (an ended pod stays,
	// with its log, for the pool's retention, then goes with its Secret, if it has one) or was placed
	// elsewhere.
	keep := pc.pool.Config.KubePodRetention()
	for _, p := range pods {
		switch {
		case p.DeletionTimestamp != nil:
		case !ended(p):
			if err := pc.deletePod(ctx, p.Name, false); err != nil {
				return err
			}
		case pc.cfg.Wall().Sub(endedAt(p)) >= keep:
			if err := pc.deletePod(ctx, p.Name, false); err != nil {
				return err
			}
			if hasSecret(p) {
				if err := pc.deleteSecret(ctx, p.Name); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// podGone is the report of a task whose pod is not there though the task runs: the pod ran
// (a pod that never ran is made again), so someone other than Kashi deleted it — kubectl
// delete, an eviction, a drain of the cluster's — and the task ends failed with that reason,
// as a process killed on an agent's node does (rerun when it asks to be rerun on failure).
func podGone(task models.TaskRow, a models.Assignment, now time.Time) (models.TaskReport, bool) {
	if task.State != models.TaskRunning || task.Attempt != a.Attempt {
		return models.TaskReport{}, false
	}
	return models.TaskReport{State: models.ReportExited, ExitCode: -1, TS: now, Attempt: a.Attempt,
		Cause: models.CausePodDeleted, Message: "pod deleted outside Kashi"}, true
}

// report records a report of a's pod on the node and wakes the scheduler when its cards are
// free; a report about a task no longer on the node is stale, not an error.
func (pc *poolController) report(ctx context.Context, node int64, a models.Assignment, r models.TaskReport) error {
	err := pc.store.ReportTaskStatus(ctx, node, a.TaskID, r, pc.cfg.Now())
	if errors.Is(err, models.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("report task %d: %w", a.TaskID, err)
	}
	pc.cfg.Wake()
	return nil
}

// deletePod deletes a pod with the grace period, or at once when force; one already gone is
// fine.
func (pc *poolController) deletePod(ctx context.Context, name string, force bool) error {
	grace := int64(pc.cfg.StopGrace.Seconds())
	if force {
		grace = 0
	}
	err := pc.client.CoreV1().Pods(pc.namespace).Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: &grace})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete pod %s: %w", name, err)
	}
	return pc.deleteRendezvous(ctx, name)
}

// deleteSecret deletes a pod's env Secret, which the cluster's garbage collector would
// delete after its pod (its owner) too; one already gone is fine.
func (pc *poolController) deleteSecret(ctx context.Context, name string) error {
	err := pc.client.CoreV1().Secrets(pc.namespace).Delete(ctx, name, metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete secret %s: %w", name, err)
	}
	return nil
}

// dnsLabel is name as the start of a DNS label: lower-case letters, digits and "-", at most 40.
func dnsLabel(name string) string {
	b := []byte(strings.ToLower(name))
	for i, c := range b {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			b[i] = '-'
		}
	}
	out := strings.Trim(string(b[:min(len(b), 40)]), "-")
	if out == "" {
		return "pool"
	}
	return out
}

// ended reports whether the pod's container has ended for good.
func ended(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// endedAt is when an ended pod's container ended, on the cluster's clock: its terminated
// state's finish, else its latest condition's change, else its making.
func endedAt(p *corev1.Pod) time.Time {
	for _, cs := range p.Status.ContainerStatuses {
		if t := cs.State.Terminated; t != nil && cs.Name == containerName && !t.FinishedAt.IsZero() {
			return t.FinishedAt.Time
		}
	}
	at := p.CreationTimestamp.Time
	for _, c := range p.Status.Conditions {
		if c.LastTransitionTime.After(at) {
			at = c.LastTransitionTime.Time
		}
	}
	return at
}

// exitReport is an ended pod's exit: its container's exit code, at its end.
func exitReport(p *corev1.Pod, a models.Assignment) models.TaskReport {
	r := models.TaskReport{State: models.ReportExited, Attempt: a.Attempt, ExitCode: -1, Message: p.Status.Message}
	if p.Status.Phase == corev1.PodSucceeded {
		r.ExitCode = 0
	}
	for _, cs := range p.Status.ContainerStatuses {
		if t := cs.State.Terminated; t != nil && cs.Name == containerName {
			r.ExitCode, r.TS = int(t.ExitCode), t.FinishedAt.UTC()
			if t.Reason == "OOMKilled" {
				r.Message = "OOMKilled"
			}
		}
	}
	return r
}

// unrunnable says why a task cannot run as a pod; "" when it can.
func unrunnable(a models.Assignment) string {
	if a.Image == "" {
		return "a Kubernetes pool runs tasks in container images: the task names none"
	}
	return ""
}

// waitingFailure says why a pending pod's container cannot start, when the reason is one that
// does not pass by itself (its image cannot be pulled, its configuration is wrong); "" else.
func waitingFailure(p *corev1.Pod) string {
	for _, cs := range p.Status.ContainerStatuses {
		if w := cs.State.Waiting; w != nil && slices.Contains(failedReasons, w.Reason) {
			return w.Reason + ": " + w.Message
		}
	}
	return ""
}

// failedReasons are the container waiting reasons that end a task failed to start.
// (A pod's first ErrImagePull is retried; CreateContainerConfigError passes once its
// Secret, made just after it, is there.)
var failedReasons = []string{"ImagePullBackOff", "InvalidImageName"}
