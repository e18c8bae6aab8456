package models

import (
	"reflect"
	"time"

	"k8s.io/apimachinery/pkg/labels"
)

// What runs a pool's tasks (PoolConfig.Backend).
const (
	// BackendAgent is Kashi's agent on each machine, the default (stored as "").
	BackendAgent = "agent"
	// BackendKubernetes is a Kubernetes cluster: its nodes that the pool's KubeNodeSelector
	// selects are the pool's nodes, and each task placed on one runs as a Pod bound to it.
	BackendKubernetes = "kubernetes"
)

// Kubernetes reports whether the pool's tasks run on a Kubernetes cluster.
func (c PoolConfig) Kubernetes() bool { return c.Backend == BackendKubernetes }

// KubePodRetention is how long a Kubernetes pool's ended task pods are kept: its
// KubePodRetentionS, or its default.
func (c PoolConfig) KubePodRetention() time.Duration {
	return time.Duration(c.WithDefaults().KubePodRetentionS) * time.Second
}

// checkBackend adds the rules of a Kubernetes pool: it selects its nodes by a label selector
// that parses (an empty one would take every node of the cluster), and its machines come
// from the cluster, not from a provider Kashi scales; the settings of the Kubernetes backend
// (PoolField.Backend) belong to Kubernetes pools only.
func checkBackend(ps *Problems, c PoolConfig, bad func(...string) bool) {
	if bad("backend") {
		return
	}
	if !c.Kubernetes() {
		for _, f := range PoolFields {
			if f.Backend == BackendKubernetes && !bad(f.Name) && !reflect.ValueOf(f.Value(c)).IsZero() {
				ps.Add(fieldErr(f.Name, "is for pools of the kubernetes backend only"))
			}
		}
		return
	}
	if bad("kube_node_selector") {
		return
	}
	if c.KubeNodeSelector == "" {
		ps.Add(fieldErr("kube_node_selector", "is required for the kubernetes backend: a label selector of the pool's nodes, e.g. nvidia.com/gpu.product=NVIDIA-A100-SXM4-80GB"))
	} else if sel, err := labels.Parse(c.KubeNodeSelector); err != nil {
		ps.Add(fieldErr("kube_node_selector", "is not a label selector: %v", err))
	} else if sel.Empty() {
		ps.Add(fieldErr("kube_node_selector", "selects every node: name at least one label"))
	}
}
