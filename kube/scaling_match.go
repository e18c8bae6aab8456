package kube

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"kashi/models"
)

// A Kubernetes pool that Kashi sizes through a provider (models.PoolConfig.KubeScaling
// provider) learns which of its cluster's nodes are the machines Kashi booted by the nodes'
// spec.providerID: the cloud's name of the machine under the node, which its cloud
// controller manager (or the kubelet's --provider-id) sets. The matching rule: a node is the
// machine of one of the pool's live intents when its providerID is the machine's provider id,
// or ends in "/" and that id (the cloud's form, e.g. aws:///us-east-1a/i-0abc for i-0abc,
// gce://project/zone/name for name). Such a node registers with the machine's id, so that
// the scaling loop's reconcile finds it up, and only such nodes are the loop's to drain and
// release. A node with no match registers as the cluster's own (its UID as its machine id),
// which the loop never releases. A node whose machine Kashi released is not the pool's again.

// poolMachines are the pool's live machine intents when Kashi sizes the pool through a
// provider; none otherwise (every node is the cluster's own).
func (pc *poolController) poolMachines(ctx context.Context) ([]models.Machine, error) {
	if !pc.pool.Config.KubeScaledByProvider() {
		return nil, nil
	}
	return pc.store.Machines(ctx, pc.pool.ID)
}

// machineOf is the provider id of the machine among ms that the node is (by its
// spec.providerID, as the rule above says), or "" when it is none of them.
func machineOf(n *corev1.Node, ms []models.Machine) string {
	pid := n.Spec.ProviderID
	if pid == "" {
		return ""
	}
	for _, m := range ms {
		if m.ProviderID != "" && (pid == m.ProviderID || strings.HasSuffix(pid, "/"+m.ProviderID)) {
			return m.ProviderID
		}
	}
	return ""
}

// registeredAs is the machine id the node registers with: its machine's provider id when it
// is a machine Kashi booted (mid), else its UID, the cluster's own node.
func registeredAs(n *corev1.Node, mid string) string {
	if mid != "" {
		return mid
	}
	return string(n.UID)
}
