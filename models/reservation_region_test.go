package models_test

import (
	"testing"

	"kashi/models"
)

// TestReservationSpec: a reservation in a region without a spec books the cheapest priced
// spec whose enabled pools there can hold the cards.
func TestReservationSpec(t *testing.T) {
	pool := func(spec, region string, nodes, per int, on bool) models.ConfiguredPool {
		var p models.ConfiguredPool
		p.Config = models.PoolConfig{Spec: spec, Region: region, MaxNodes: nodes, GPUsPerNode: per, Enabled: on}
		return p
	}
	pools := []models.ConfiguredPool{
		pool("A100-80G", "sh", 2, 8, true), pool("RTX4090-24G", "sh", 1, 8, true), pool("RTX4090-24G", "sh", 1, 4, true),
		pool("L40S-48G", "sh", 4, 8, false), pool("H800-80G", "gz", 4, 8, true), pool("T4-16G", "sh", 8, 8, true),
	}
	rates := map[string]int64{"A100-80G": 1500, "RTX4090-24G": 300, "L40S-48G": 100, "H800-80G": 50}
	rate := func(spec string) (int64, bool) { r, ok := rates[spec]; return r, ok }
	for _, tc := range []struct {
		region string
		gpus   int
		want   string
		ok     bool
	}{
		{"sh", 12, "RTX4090-24G", true}, // two pools of 8 and 4 together; L40S is off, T4 unpriced
		{"sh", 13, "A100-80G", true},
		{"sh", 17, "", false},
		{"gz", 8, "H800-80G", true},
		{"bj", 1, "", false},
	} {
		if got, ok := models.ReservationSpec(pools, rate, tc.region, tc.gpus); got != tc.want || ok != tc.ok {
			t.Errorf("ReservationSpec(%s, %d) = %q %v, want %q %v", tc.region, tc.gpus, got, ok, tc.want, tc.ok)
		}
	}
}
