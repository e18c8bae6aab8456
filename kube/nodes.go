package kube

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"kashi/models"
)

// GPUResource is the extended resource a node offers its GPUs as (NVIDIA's device plugin).
const GPUResource = "nvidia.com/gpu"

// The labels NVIDIA's GPU feature discovery puts on a node: its GPUs' product name and memory
// in MiB. Without them a node's GPUs are taken to be of the pool's spec.
const (
	labelGPUProduct = "nvidia.com/gpu.product"
	labelGPUMemory  = "nvidia.com/gpu.memory"
)

// syncNodes makes the pool's nodes those the cluster lists: a selected node with GPUs
// registers (again, when new to the pool, lost, or its cards changed), the Ready ones are
// seen now, a cordoned one (spec.unschedulable) is drained in Kashi and an uncordoned one
// takes tasks again, and a node of the pool the cluster no longer lists is a machine gone, its tasks
// ending or queued again as for a lost agent. Each node is then synced.
func (pc *poolController) syncNodes(ctx context.Context) error {
	cluster, err := pc.nodes.List(pc.selector)
	if err != nil {
		return err
	}
	all, err := pc.store.Nodes(ctx)
	if err != nil {
		return err
	}
	known := make(map[string]models.NodeGPUs)
	for _, n := range all {
		if n.Pool == pc.pool.Name {
			known[n.Hostname] = n
		}
	}
	if err := pc.knowRemoved(ctx, cluster, known); err != nil {
		return err
	}
	machines, err := pc.poolMachines(ctx)
	if err != nil {
		return err
	}
	now := pc.cfg.Now()
	ids := make(map[string]int64, len(cluster))
	var seen []int64
	changed := false
	for _, kn := range cluster {
		gpus := gpusOf(kn)
		if len(gpus) == 0 {
			continue
		}
		if err := withSpec(gpus, pc.pool.Spec); err != nil {
			pc.cfg.Logger.Warn("kubernetes pool: node's GPUs", "pool", pc.pool.Name, "node", kn.Name, "err", err)
			continue
		}
		n, ok := known[kn.Name]
		mid := machineOf(kn, machines)
		if ok && n.State == models.NodeRemoved && (mid == "" || mid == n.MachineID) {
			continue // its machine released by the scaling loop (scaling_match.go)
		}
		if !ok || n.State == models.NodeLost || n.State == models.NodeRemoved || len(n.GPUs) != len(gpus) || (mid != "" && mid != n.MachineID) {
			if !ready(kn) {
				continue
			}
			reg := models.NodeRegistration{Hostname: kn.Name, Pool: pc.pool.Name, MachineID: registeredAs(kn, mid), GPUs: gpus, Cluster: true,
				From: "kubernetes"}
			_, hash := models.NewToken("kn_") // nobody holds it: no agent speaks for this node
			node, err := pc.store.RegisterNode(ctx, reg, hash, now)
			if err != nil {
				pc.cfg.Logger.Warn("kubernetes pool: register node", "pool", pc.pool.Name, "node", kn.Name, "err", err)
				continue
			}
			ids[kn.Name], changed = node.ID, true
			n.State = node.State
		} else {
			ids[kn.Name] = n.ID
			if ready(kn) {
				seen = append(seen, n.ID)
			}
		}
		if kn.Spec.Unschedulable != (n.State == models.NodeDraining) {
			moved, err := pc.store.CordonNode(ctx, ids[kn.Name], kn.Spec.Unschedulable)
			if err != nil {
				return err
			}
			changed = changed || moved
		}
	}
	if err := pc.store.NodesSeen(ctx, seen, now); err != nil {
		return err
	}
	for name, n := range known {
		if _, ok := ids[name]; ok || n.State == models.NodeLost || n.State == models.NodeRemoved {
			continue
		}
		if _, err := pc.nodes.Get(name); err == nil {
			continue // still in the cluster, but not ready or without cards: silent, as an agent would be
		}
		lost, err := pc.store.MachineGone(ctx, n.ID, now)
		if err != nil {
			return err
		}
		if lost != nil {
			pc.cfg.Logger.Info("kubernetes pool: node gone from the cluster", "pool", pc.pool.Name, "node", name, "tasks", lost.Tasks)
			changed = true
		}
	}
	pc.setNodes(ctx, ids)
	if changed {
		pc.cfg.Wake()
	}
	return nil
}

// knowRemoved adds to known the removed nodes among the cluster's that known lacks: a node
// whose machine the scaling loop released stays listed until its deletion ends, and must not
// register again meanwhile (it would read lost once gone).
func (pc *poolController) knowRemoved(ctx context.Context, cluster []*corev1.Node, known map[string]models.NodeGPUs) error {
	var names []string
	for _, kn := range cluster {
		if _, ok := known[kn.Name]; !ok {
			names = append(names, kn.Name)
		}
	}
	removed, err := pc.store.RemovedNodes(ctx, pc.pool.ID, names)
	for name, n := range removed {
		known[name] = models.NodeGPUs{Node: n}
	}
	return err
}

// setNodes records the pool's registered nodes, starts a wait for the assignments of each new
// one, ends those of nodes gone, and queues every node (and every node with pods, so that the
// pods of a node gone are deleted).
func (pc *poolController) setNodes(ctx context.Context, ids map[string]int64) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	for name, cancel := range pc.waits {
		if ids[name] != pc.ids[name] {
			cancel()
			delete(pc.waits, name)
		}
	}
	pc.ids = ids
	for name, id := range ids {
		if _, ok := pc.waits[name]; !ok {
			wctx, cancel := context.WithCancel(ctx)
			pc.waits[name] = cancel
			go pc.watch(wctx, name, id)
		}
		pc.queue.Add(name)
	}
	for _, name := range pc.pods.ListIndexFuncValues(byNode) {
		pc.queue.Add(name)
	}
}

// nodeID is the pool's node id of a cluster node; false when it is not the pool's.
func (pc *poolController) nodeID(name string) (int64, bool) {
	pc.mu.Lock()
	defer pc.mu.Unlock()
	id, ok := pc.ids[name]
	return id, ok
}

// watch queues the node whenever its assignments change (a placement, a stop), as an agent's
// long poll wakes, until ctx ends.
func (pc *poolController) watch(ctx context.Context, name string, id int64) {
	for ctx.Err() == nil {
		w, err := pc.store.WaitAssignments(ctx, id)
		if err != nil {
			return
		}
		pc.queue.Add(name)
		select {
		case <-w.C:
			if w.Ended() {
				return
			}
		case <-ctx.Done():
			w.Stop()
			return
		}
	}
}

// ready reports whether the node's Ready condition is True. A cordoned node is ready: its
// pods run on, while Kashi places nothing new there (syncNodes drains it in Kashi, by hand,
// for as long as it is cordoned).
func ready(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// gpusOf is the node's allocatable nvidia.com/gpu as the GPUs it registers: named by the node
// and their index (the cluster does not say which card is which), of the model and memory
// its GPU feature discovery labels say, or else of its pool's spec (see specGPU).
func gpusOf(n *corev1.Node) []models.GPUInfo {
	q, ok := n.Status.Allocatable[GPUResource]
	if !ok || q.Value() <= 0 {
		return nil
	}
	count := min(int(q.Value()), models.MaxGPUsPerNode)
	name, mem := n.Labels[labelGPUProduct], int64(0)
	if v, err := strconv.ParseInt(n.Labels[labelGPUMemory], 10, 64); err == nil {
		mem = v
	}
	out := make([]models.GPUInfo, count)
	for i := range out {
		out[i] = models.GPUInfo{UUID: gpuUUID(n.Name, i), Index: i, Name: name, MemoryTotalMiB: mem}
	}
	return out
}

// withSpec fills in the model and memory of GPUs whose node's labels do not say them from the
// pool's spec ("A100-80G": model A100, 80 GiB), so that they register as that spec.
func withSpec(gpus []models.GPUInfo, spec string) error {
	if len(gpus) == 0 || (gpus[0].Name != "" && gpus[0].MemoryTotalMiB > 0) {
		return nil
	}
	i := strings.LastIndex(spec, "-")
	gib, err := strconv.ParseInt(strings.TrimSuffix(spec[i+1:], "G"), 10, 64)
	if i <= 0 || err != nil || gib <= 0 {
		return errors.New("the pool's spec " + strconv.Quote(spec) + " names no memory, and the node no GPU product")
	}
	for j := range gpus {
		gpus[j].Name, gpus[j].MemoryTotalMiB = spec[:i], gib*1024
	}
	return nil
}

// gpuUUID names a node's GPU by the node and index: stable while the node keeps its name.
func gpuUUID(node string, index int) string {
	id := fmt.Sprintf("k8s-%s-%d", node, index)
	if len(id) <= 100 {
		return id
	}
	sum := sha256.Sum256([]byte(node))
	return fmt.Sprintf("k8s-%s-%d", hex.EncodeToString(sum[:16]), index)
}
