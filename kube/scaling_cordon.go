package kube

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// cordonPatch marks a node unschedulable, as kubectl cordon does.
var cordonPatch = []byte(`{"spec":{"unschedulable":true}}`)

// Cordon marks the cluster's node named node of the Kubernetes pool unschedulable, as the
// scaling loop asks before it releases the node's machine (kube_scaling provider): the
// cluster's scheduler then puts no other pod there (Kashi's own are all ended: the loop
// removes only a node it drained and that holds no task). A node no longer in the cluster
// needs none. It fails while this replica's controller of the pool does not hold the pool's
// Lease, so that the loop tries again rather than release a machine under another replica.
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
	return nil
}
