package replay

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
)

// What a calibration proposes is the replayed setting written into the pool's configuration,
// and nothing else changes.
func TestProposeConfig(t *testing.T) {
	cfg := models.PoolConfig{Provider: "sim", Spec: "A100-80G", GPUsPerNode: 8, Enabled: true, MinNodes: 1, MaxNodes: 6,
		Step: 1, MemoryHighPct: 80, CooldownUpS: 600, CooldownDownS: 600, BootTimeoutS: 900}
	got, err := ProposeConfig(Setting{{"scale_up_mem", "0.9"}, {"cooldown", "5m"}, {"max_nodes", "8"}}, "a100", cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := cfg
	want.MemoryHighPct, want.CooldownUpS, want.CooldownDownS, want.MaxNodes = 90, 300, 300, 8
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ProposeConfig (-want +got):\n%s", diff)
	}
	if _, err := ProposeConfig(Setting{{"policy", "fifo"}}, "a100", cfg); err == nil {
		t.Error("ProposeConfig(policy=fifo) = nil error, want one: not a pool setting")
	}
	if p := PoolOf("a100", cfg, 1500); p.Scale == nil || p.Scale.MaxNodes != 6 || p.RateFen != 1500 || p.GPUsPerNode != 8 {
		t.Errorf("PoolOf = %+v", p)
	}
}
