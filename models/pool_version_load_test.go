package models

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestOldPoolVersionsLoad: a configuration stored before the settings table, in seconds and
// without the settings added since, loads as it was and can be rolled back to.
func TestOldPoolVersionsLoad(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "old.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t0 := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	p, err := s.SavePoolConfig(ctx, "a100", PoolConfig{Provider: "sim", Spec: "A100-80G", GPUsPerNode: 8, MaxNodes: 2}, "admin", "", t0)
	if err != nil {
		t.Fatal(err)
	}
	const old = `{"provider":"sim","spec":"A100-80G","gpus_per_node":8,"flavor":"gpu.a100.8x","image":"kashi-agent",` +
		`"enabled":true,"min_nodes":1,"max_nodes":6,"step":2,"boot_timeout_s":900,"scale_up_delay_s":90,` +
		`"memory_high_pct":85.5,"memory_high_window_s":300,"unneeded_s":600,"cooldown_up_s":600,"cooldown_down_s":1200}`
	if err := s.db.Exec("UPDATE pool_policies SET config = ? WHERE pool_id = ?", old, p.ID).Error; err != nil {
		t.Fatal(err)
	}
	if err := s.db.Exec("UPDATE pool_policy_versions SET after = ? WHERE pool_id = ?", old, p.ID).Error; err != nil {
		t.Fatal(err)
	}
	want := PoolConfig{Provider: "sim", Spec: "A100-80G", GPUsPerNode: 8, Flavor: "gpu.a100.8x", Image: "kashi-agent",
		Enabled: true, MinNodes: 1, MaxNodes: 6, Step: 2, BootTimeoutS: 900, ScaleUpDelayS: 90, MemoryHighPct: 85.5,
		MemoryHighWindowS: 300, UnneededS: 600, CooldownUpS: 600, CooldownDownS: 1200}
	got, err := s.ConfiguredPoolByName(ctx, "a100")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got.Config); diff != "" {
		t.Errorf("old configuration loads as (-want +got):\n%s", diff)
	}
	if err := got.Config.Validate(); err != nil {
		t.Errorf("old configuration is refused: %v", err)
	}
	if _, err := s.SavePoolConfig(ctx, "a100", PoolConfig{Provider: "sim", Spec: "A100-80G", GPUsPerNode: 8, MaxNodes: 3}, "admin", "", t0); err != nil {
		t.Fatal(err)
	}
	back, err := s.RollBackPoolConfig(ctx, "a100", 1, "admin", t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, back.Config); diff != "" || back.Version != 3 {
		t.Errorf("roll back to the old version: v%d (-want +got):\n%s", back.Version, diff)
	}
}
