package models_test

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
)

// TestKubeScalingValidate: a Kubernetes pool is sized by the cluster (the default, enabled
// off) or by Kashi through a provider (enabled may be on, the provider not static); the
// setting is refused on an agent pool and outside its two values, each naming its field.
func TestKubeScalingValidate(t *testing.T) {
	provider := func(c models.PoolConfig) models.PoolConfig {
		c.KubeScaling, c.Provider, c.Enabled, c.MaxNodes = models.KubeScalingProvider, "sim", true, 4
		return c
	}
	tests := map[string]struct {
		cfg    models.PoolConfig
		fields []string
	}{
		"cluster, the default": {kubeConfig(), nil},
		"cluster named": {func() models.PoolConfig { c := kubeConfig(); c.KubeScaling = models.KubeScalingCluster; return c }(),
			nil},
		"cluster, enabled": {func() models.PoolConfig { c := kubeConfig(); c.Enabled, c.MaxNodes = true, 4; return c }(),
			[]string{"enabled"}},
		"provider":             {provider(kubeConfig()), nil},
		"provider, off":        {func() models.PoolConfig { c := provider(kubeConfig()); c.Enabled = false; return c }(), nil},
		"provider, static":     {func() models.PoolConfig { c := provider(kubeConfig()); c.Provider = "static"; return c }(), []string{"provider"}},
		"unknown":              {func() models.PoolConfig { c := kubeConfig(); c.KubeScaling = "keda"; return c }(), []string{"kube_scaling"}},
		"on an agent pool":     {func() models.PoolConfig { c := a100Config(); c.KubeScaling = models.KubeScalingProvider; return c }(), []string{"kube_scaling"}},
		"cluster on an agent":  {func() models.PoolConfig { c := a100Config(); c.KubeScaling = models.KubeScalingCluster; return c }(), []string{"kube_scaling"}},
		"agent pool, unstated": {a100Config(), nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var got []string
			for _, fe := range models.AllFieldErrors(tc.cfg.Validate()) {
				got = append(got, fe.Field)
			}
			slices.Sort(got)
			if diff := cmp.Diff(tc.fields, got); diff != "" {
				t.Errorf("Validate(%s) bad fields (-want +got):\n%s", name, diff)
			}
		})
	}
	c := provider(kubeConfig())
	if !c.KubeScaledByProvider() || c.KubeScaledByCluster() {
		t.Errorf("a provider-scaled pool: by provider %t, by cluster %t", c.KubeScaledByProvider(), c.KubeScaledByCluster())
	}
	if c := a100Config(); c.KubeScaledByProvider() || c.KubeScaledByCluster() {
		t.Errorf("an agent pool: by provider %t, by cluster %t", c.KubeScaledByProvider(), c.KubeScaledByCluster())
	}
}
