package models_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/models/modelstest"
)

// kubeConfig is a valid Kubernetes pool of 8-card A100 nodes.
func kubeConfig() models.PoolConfig {
	return models.PoolConfig{Provider: "static", Spec: "A100-80G", GPUsPerNode: 8, Backend: models.BackendKubernetes,
		KubeNodeSelector: "pool=a100", Kubeconfig: "/etc/kashi/cluster.yaml"}
}

// dcgmURL is c with its dcgm-exporter address set.
func dcgmURL(c models.PoolConfig, url string) func() models.PoolConfig {
	return func() models.PoolConfig { c.KubeDCGMURL = url; return c }
}

// TestKubeDCGMURLOf: the node's name and InternalIP are put in; no address gives "".
func TestKubeDCGMURLOf(t *testing.T) {
	c := kubeConfig()
	if got := c.KubeDCGMURLOf("gpu-1", "10.0.0.7"); got != "" {
		t.Errorf("KubeDCGMURLOf without an address = %q, want \"\"", got)
	}
	c.KubeDCGMURL = "http://$(NODE_IP):9400/$(NODE_NAME)/metrics"
	if got, want := c.KubeDCGMURLOf("gpu-1", "10.0.0.7"), "http://10.0.0.7:9400/gpu-1/metrics"; got != want {
		t.Errorf("KubeDCGMURLOf = %q, want %q", got, want)
	}
}

// TestPoolBackendValidate: a Kubernetes pool needs a label selector that parses and selects
// something and is not scaled by Kashi; the selector, kubeconfig and pod retention are
// refused on an agent pool; the retention is 0 to 30 days; an unknown backend is refused; on
// both databases.
func TestPoolBackendValidate(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		tests := map[string]struct {
			cfg    func() models.PoolConfig
			fields []string
		}{
			"kubernetes": {kubeConfig, nil},
			"in-cluster": {func() models.PoolConfig { c := kubeConfig(); c.Kubeconfig = ""; return c }, nil},
			"set-based selector": {func() models.PoolConfig {
				c := kubeConfig()
				c.KubeNodeSelector = "gpu in (a100,h100),!cordon"
				return c
			}, nil},
			"agent":               {a100Config, nil},
			"no selector":         {func() models.PoolConfig { c := kubeConfig(); c.KubeNodeSelector = ""; return c }, []string{"kube_node_selector"}},
			"bad selector":        {func() models.PoolConfig { c := kubeConfig(); c.KubeNodeSelector = "a b"; return c }, []string{"kube_node_selector"}},
			"scaled":              {func() models.PoolConfig { c := kubeConfig(); c.Enabled, c.MaxNodes = true, 4; return c }, []string{"enabled"}},
			"unknown backend":     {func() models.PoolConfig { c := kubeConfig(); c.Backend = "slurm"; return c }, []string{"backend"}},
			"selector on agent":   {func() models.PoolConfig { c := a100Config(); c.KubeNodeSelector = "pool=a100"; return c }, []string{"kube_node_selector"}},
			"kubeconfig on agent": {func() models.PoolConfig { c := a100Config(); c.Kubeconfig = "/x"; return c }, []string{"kubeconfig"}},
			"retention on agent":  {func() models.PoolConfig { c := a100Config(); c.KubePodRetentionS = 60; return c }, []string{"kube_pod_retention_s"}},
			"a day's retention":   {func() models.PoolConfig { c := kubeConfig(); c.KubePodRetentionS = 86400; return c }, nil},
			"retention too long":  {func() models.PoolConfig { c := kubeConfig(); c.KubePodRetentionS = 31 * 86400; return c }, []string{"kube_pod_retention_s"}},
			"negative retention":  {func() models.PoolConfig { c := kubeConfig(); c.KubePodRetentionS = -1; return c }, []string{"kube_pod_retention_s"}},
			"exporter by node ip": {dcgmURL(kubeConfig(), "http://$(NODE_IP):9400/metrics"), nil},
			"exporter by name":    {dcgmURL(kubeConfig(), "https://dcgm.example.com/$(NODE_NAME)/metrics"), nil},
			"exporter on agent":   {dcgmURL(a100Config(), "http://$(NODE_IP):9400/metrics"), []string{"kube_dcgm_url"}},
			"exporter of no node": {dcgmURL(kubeConfig(), "http://dcgm:9400/metrics"), []string{"kube_dcgm_url"}},
			"unknown placeholder": {dcgmURL(kubeConfig(), "http://$(NODE_IP):$(PORT)/metrics"), []string{"kube_dcgm_url"}},
			"not http":            {dcgmURL(kubeConfig(), "ftp://$(NODE_IP)/metrics"), []string{"kube_dcgm_url"}},
			"no host":             {dcgmURL(kubeConfig(), "http:///$(NODE_NAME)"), []string{"kube_dcgm_url"}},
			"with a password":     {dcgmURL(kubeConfig(), "http://u:p@$(NODE_IP):9400/metrics"), []string{"kube_dcgm_url"}},
			"exporter too long":   {dcgmURL(kubeConfig(), "http://$(NODE_IP)/"+strings.Repeat("m", 1000)), []string{"kube_dcgm_url"}},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				p, err := s.SavePoolConfig(context.Background(), "a100", tc.cfg(), "admin", name, ft0)
				var got []string
				for _, fe := range models.AllFieldErrors(err) {
					got = append(got, fe.Field)
				}
				if err != nil && got == nil {
					t.Fatalf("SavePoolConfig(...) = %v, want field errors or nil", err)
				}
				slices.Sort(got)
				if diff := cmp.Diff(tc.fields, got); diff != "" {
					t.Errorf("SavePoolConfig(...) bad fields (-want +got):\n%s\n%v", diff, err)
				}
				if err == nil && p.Config.Kubernetes() != (tc.cfg().Backend == models.BackendKubernetes) {
					t.Errorf("saved %+v: Kubernetes() = %t", p.Config, p.Config.Kubernetes())
				}
			})
		}
	})
}

// TestKubeTaskAcrossNodes: a task larger than a node of a Kubernetes pool of its spec is
// stored, as on an agent pool (it runs as one pod per node, kube/multinode.go).
func TestKubeTaskAcrossNodes(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		if _, err := s.SavePoolConfig(ctx, "k8s", kubeConfig(), "admin", "", ft0); err != nil {
			t.Fatal(err)
		}
		registerNode(t, s, "k8s-1", "k8s", 8)
		registerNode(t, s, "k8s-2", "k8s", 8)
		if _, err := s.EnsureProject(ctx, "vision", t0); err != nil {
			t.Fatal(err)
		}
		nt := models.NewTask{Project: "vision", Name: "train", Owner: "ana", GPUs: 16, Spec: "A100-80G", Image: "train:1",
			Queue: models.QueueLong, Priority: "normal", MaxRuntime: time.Hour, Command: []string{"python", "train.py"}}
		if _, _, err := s.CreateTask(ctx, nt, models.DefaultTaskLimits, t0); err != nil {
			t.Errorf("CreateTask of 16 cards on 8-card Kubernetes nodes = %v, want it stored", err)
		}
	})
}

// TestClusterRegistration: the controller of a Kubernetes pool registers a node again by its
// hostname in the pool, without its token, keeping its id; NodesSeen moves a ready node's
// last sign of life and leaves a lost one lost.
func TestClusterRegistration(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		if _, err := s.SavePoolConfig(ctx, "k8s", kubeConfig(), "admin", "", ft0); err != nil {
			t.Fatal(err)
		}
		gpus := []models.GPUInfo{{UUID: "k8s-n1-0", Index: 0, Name: "A100", MemoryTotalMiB: 81920}}
		reg := models.NodeRegistration{Hostname: "n1", Pool: "k8s", GPUs: gpus, Cluster: true}
		first, err := s.RegisterNode(ctx, reg, "hash-1", t0)
		if err != nil {
			t.Fatal(err)
		}
		again, err := s.RegisterNode(ctx, reg, "hash-2", t0.Add(time.Minute))
		if err != nil || again.ID != first.ID {
			t.Fatalf("RegisterNode again by the cluster = %+v, %v; want node %d", again, err, first.ID)
		}
		reg.Cluster = false
		if _, err := s.RegisterNode(ctx, reg, "hash-3", t0.Add(time.Minute)); err == nil {
			t.Errorf("RegisterNode of n1 by an agent without its token succeeded")
		}
		if err := s.NodesSeen(ctx, []int64{first.ID}, t0.Add(5*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if lost, err := s.MarkLostNodes(ctx, []int64{first.ID}, t0.Add(4*time.Minute), t0.Add(6*time.Minute)); err != nil || len(lost) != 0 {
			t.Errorf("MarkLostNodes after NodesSeen = %v, %v; want none lost", lost, err)
		}
		if _, err := s.MachineGone(ctx, first.ID, t0.Add(7*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := s.NodesSeen(ctx, []int64{first.ID}, t0.Add(8*time.Minute)); err != nil {
			t.Fatal(err)
		}
		nodes, err := s.Nodes(ctx)
		if err != nil || len(nodes) != 1 || nodes[0].State != models.NodeLost {
			t.Errorf("Nodes() after a lost node was seen = %+v, %v; want it still lost", nodes, err)
		}
	})
}

// TestKubernetesSettingsAreMarked: every setting of the Kubernetes backend (named kube…) is
// marked as the backend's own, so that an agent pool refuses it and its form hides it, and
// only those are; and each marked one is refused on an agent pool, naming it.
func TestKubernetesSettingsAreMarked(t *testing.T) {
	for _, f := range models.PoolFields {
		if kube := strings.HasPrefix(f.Name, "kube"); kube != (f.Backend == models.BackendKubernetes) {
			t.Errorf("pool setting %s: Backend %q, want %q", f.Name, f.Backend, map[bool]string{true: models.BackendKubernetes}[kube])
		}
		if f.Backend == "" {
			continue
		}
		c := a100Config()
		switch f.Kind {
		case models.PoolText, models.PoolChoice:
			f.SetValue(&c, "x")
		case models.PoolSwitch:
			f.SetValue(&c, true)
		default:
			f.SetValue(&c, f.Max)
		}
		fes := models.AllFieldErrors(c.Validate())
		if !slices.ContainsFunc(fes, func(fe *models.FieldError) bool { return fe.Field == f.Name }) {
			t.Errorf("an agent pool with %s set: %v, want it refused naming %s", f.Name, fes, f.Name)
		}
	}
}
