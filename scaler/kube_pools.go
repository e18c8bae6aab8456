package scaler

import (
	"context"

	"kashi/models"
	"kashi/phrase"
)

// The scaling loop and Kubernetes pools (models.PoolConfig.KubeScaling). A pool the cluster's
// own autoscaler sizes is in the snapshot to be reported, never acted on: its size is the
// cluster's nodes, its demand is counted by the demand rule as any pool's, and no provider is
// asked anything for it. A pool Kashi sizes through a provider goes the agent pools' way
// (reconcile, DecideScale, apply), except that only the nodes of machines Kashi booted are
// its to drain and remove (kubeOwnNodes), and a node is cordoned in the cluster before its
// machine is released (Config.Cordon).

// clusterPool is the snapshot's entry of a pool the cluster's autoscaler sizes: its nodes
// (for its size), nothing booting, no timers.
func (s *Scaler) clusterPool(cp models.ConfiguredPool, nodes []models.NodeGPUs) Pool {
	p := Pool{Name: cp.Name, GPUsPerNode: cp.GPUsPerNode, Policy: PolicyOf(cp.Config), ClusterScaled: true}
	for _, n := range nodes {
		if n.PoolID == cp.ID && n.State != models.NodeRemoved && n.State != models.NodeLost {
			p.Nodes = append(p.Nodes, Node{ID: n.ID, State: n.State})
		}
	}
	return p
}

// reportCluster adds a cluster-scaled pool's size and admissible demand to the plan, and why
// the loop does not act on it.
func reportCluster(plan *Plan, p Pool) {
	demand := admissibleGPUs(p.Demand)
	plan.Sizes = append(plan.Sizes, PoolSize{Pool: p.Name, Size: len(p.Nodes), Desired: len(p.Nodes), DemandGPUs: demand})
	plan.Skips = append(plan.Skips, Skip{Pool: p.Name, Reason: ReasonClusterScales,
		Detail: phrase.Of(phrase.New("cluster_scales", phrase.N(demand)))})
}

// kubeOwnNodes clears the machine id of each node of a Kubernetes pool that no intent of the
// pool is ready on: a node the cluster had before or added itself, which the loop never
// drains or removes (DecideScale leaves nodes without a machine id alone). Kashi's machines'
// nodes (linked by reconcile, by the machine id package kube registered them with) keep it.
func (s *Scaler) kubeOwnNodes(ctx context.Context, cp models.ConfiguredPool, nodes []Node) error {
	intents, err := s.store.Machines(ctx, cp.ID)
	if err != nil {
		return err
	}
	ours := make(map[int64]bool)
	for _, m := range intents {
		if m.NodeID != nil {
			ours[*m.NodeID] = true
		}
	}
	for i := range nodes {
		if !ours[nodes[i].ID] {
			nodes[i].MachineID = ""
		}
	}
	return nil
}

// cordon asks the cluster to take no pod onto a Kubernetes pool's node whose machine the loop
// releases, before the machine is released; a no-op for other pools or without Config.Cordon.
func (s *Scaler) cordon(ctx context.Context, cp models.ConfiguredPool, nodeID int64) error {
	if !cp.Config.Kubernetes() || s.cfg.Cordon == nil {
		return nil
	}
	nodes, err := s.store.Nodes(ctx)
	if err != nil {
		return err
	}
	for _, n := range nodes {
		if n.ID == nodeID {
			return s.cfg.Cordon(ctx, cp.Name, n.Hostname)
		}
	}
	return nil
}
