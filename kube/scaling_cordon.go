package kube

import (
	"context"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"

	"kashi/models"
)

// cordonPatch marks a node unschedulable, as kubectl cordon does.
var cordonPatch = []byte(`{"spec":{"unschedulable":true}}`)

// Cordon readies the cluster's node named node of the Kubernetes pool for its machine's
// release, as the scaling loop asks before it deletes the machine (kube_scaling provider),
// the way kubectl drain does: it marks the node unschedulable, so that the cluster's
// scheduler puts no other pod there, then evicts the pods of other workloads still on it
// through the Eviction API, so that their PodDisruptionBudgets hold (Kashi's own are all
// ended: the loop removes only a node it drained and that holds no task). DaemonSets' and
// static pods are left, as kubectl drain leaves them: they go with the node. While any
// evicted pod is still on the node (terminating, or its budget refused the eviction) it
// fails with models.ErrConflict, and the loop tries again next tick. A node no longer in
// the cluster needs none. It fails while this replica's controller of the pool does not
// hold the pool's Lease, so that the loop tries again rather than release a machine under
// another replica.
func (c *Controller) Cordon(ctx context.Context, pool, node string) error {
	c.smu.Lock()
	st := c.states[pool]
	c.smu.Unlock()
	var pc *poolController
	if st != nil {
		pc = st.leader()
	}
	if pc == nil || pc.queue.ShuttingDown() {
		return fmt.Errorf("kube: cordon %s of pool %s: this replica does not run the pool's controller", node, pool)
	}
	_, err := pc.client.CoreV1().Nodes().Patch(ctx, node, types.MergePatchType, cordonPatch, metav1.PatchOptions{FieldManager: fieldManager})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("kube: cordon %s of pool %s: %w", node, pool, err)
	}
	return pc.evictOthers(ctx, node)
}

// evictOthers asks every pod of node that evictable names to leave, and fails with
// models.ErrConflict naming those still there.
func (pc *poolController) evictOthers(ctx context.Context, node string) error {
	pods, err := pc.client.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("spec.nodeName", node).String()})
	if err != nil {
		return fmt.Errorf("kube: pods of node %s: %w", node, err)
	}
	var staying []string
	for _, p := range pods.Items {
		if !evictable(&p) {
			continue
		}
		if p.DeletionTimestamp == nil {
			// Asked once, as client-go's Evict asks but without its retries: a budget's
			// refusal comes with a Retry-After that they would wait out, ten times, inside
			// the scaling tick; the next tick asks again.
			ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace}}
			err := pc.client.PolicyV1().RESTClient().Post().AbsPath("/api/v1").Namespace(p.Namespace).Resource("pods").
				Name(p.Name).SubResource("eviction").Body(ev).MaxRetries(0).Do(ctx).Error()
			switch {
			case apierrors.IsNotFound(err):
				continue
			case apierrors.IsTooManyRequests(err):
				staying = append(staying, p.Namespace+"/"+p.Name+" (its disruption budget refuses)")
				continue
			case err != nil:
				return fmt.Errorf("kube: evict %s/%s from node %s: %w", p.Namespace, p.Name, node, err)
			}
		}
		staying = append(staying, p.Namespace+"/"+p.Name)
	}
	if len(staying) > 0 {
		return fmt.Errorf("kube: node %s: pods of other workloads still leaving: %s: %w", node, strings.Join(staying, ", "), models.ErrConflict)
	}
	return nil
}

// evictable says whether a pod must leave a node before its machine goes: a pod not ended,
// and neither a DaemonSet's nor a static (mirror) pod, which go with their node.
func evictable(p *corev1.Pod) bool {
	if p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed {
		return false
	}
	if _, ok := p.Annotations[corev1.MirrorPodAnnotationKey]; ok {
		return false
	}
	for _, o := range p.OwnerReferences {
		if o.Kind == "DaemonSet" && o.Controller != nil && *o.Controller {
			return false
		}
	}
	return true
}
