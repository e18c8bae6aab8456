package models

// Who sizes a Kubernetes pool (PoolConfig.KubeScaling).
const (
	// KubeScalingCluster: the cluster's own autoscaler (cluster-autoscaler, Karpenter, KEDA)
	// adds and removes the pool's nodes; Kashi never asks a provider for a machine of the
	// pool and only reports the pool's demand. The default, stored as "".
	KubeScalingCluster = "cluster"
	// KubeScalingProvider: Kashi's scaling loop sizes the pool's node group through the
	// pool's provider, as it sizes an agent pool; a machine it booted joins the cluster as a
	// node whose spec.providerID names the machine (package kube matches them).
	KubeScalingProvider = "provider"
)

// KubeScaledByCluster reports whether the pool is a Kubernetes pool whose nodes the cluster's
// own autoscaler adds and removes: the scaling loop reports its demand and acts on nothing.
func (c PoolConfig) KubeScaledByCluster() bool {
	return c.Kubernetes() && c.KubeScaling != KubeScalingProvider
}

// KubeScaledByProvider reports whether the pool is a Kubernetes pool whose node group Kashi's
// scaling loop sizes through the pool's provider.
func (c PoolConfig) KubeScaledByProvider() bool {
	return c.Kubernetes() && c.KubeScaling == KubeScalingProvider
}

// checkKubeScaling adds the rules of who sizes a pool: the setting is for Kubernetes pools
// only; a pool the cluster sizes is not scaled by Kashi (enabled off), and one Kashi sizes
// names a provider it can ask for machines (not "static").
func checkKubeScaling(ps *Problems, c PoolConfig, bad func(...string) bool) {
	if !c.Kubernetes() || bad("backend", "kube_scaling", "enabled", "provider") {
		return // of another backend, checkBackend refuses the setting
	}
	switch {
	case c.KubeScaledByCluster() && c.Enabled:
		ps.Add(fieldErr("enabled", "must be off while the cluster's autoscaler sizes the pool (kube_scaling cluster): Kashi only reports its demand"))
	case c.KubeScaledByProvider() && c.Provider == "static":
		ps.Add(fieldErr("provider", "must name the provider of the pool's node group when Kashi sizes it (kube_scaling provider), not static"))
	}
}
