package scaler

import (
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
)

func TestPolicyWithDefaults(t *testing.T) {
	want := Policy{MaxNodes: 3, Step: 1, BootTimeout: 15 * time.Minute, ScaleUpDelay: 2 * time.Minute,
		MemoryHighPct: 80, MemoryHighWindow: 5 * time.Minute, MemoryLowPct: 20, MemoryLowWindow: 10 * time.Minute,
		UnneededTime: 10 * time.Minute, CooldownAfterUp: 10 * time.Minute, CooldownAfterDown: 10 * time.Minute,
		MaxInFlight: 4, DrainBuffer: 30 * time.Minute}
	if diff := cmp.Diff(want, Policy{MaxNodes: 3, Step: -2}.WithDefaults()); diff != "" {
		t.Errorf("WithDefaults of an empty policy (-want +got):\n%s", diff)
	}
	if got := (Policy{Step: 6}).WithDefaults().MaxInFlight; got != 6 {
		t.Errorf("WithDefaults with step 6: max in flight %d, want 6", got)
	}
	// Every field set stays as it is.
	var set Policy
	v := reflect.ValueOf(&set).Elem()
	for i := range v.NumField() {
		if f := v.Field(i); f.CanInt() {
			f.SetInt(int64(i + 1))
		} else {
			f.SetFloat(float64(i + 1))
		}
	}
	if diff := cmp.Diff(set, set.WithDefaults()); diff != "" {
		t.Errorf("WithDefaults of a full policy (-want +got):\n%s", diff)
	}
}

func TestPolicyOf(t *testing.T) {
	c := models.PoolConfig{MinNodes: 1, MaxNodes: 6, Step: 2, ReservedMin: 1, BootTimeoutS: 600, ScaleUpDelayS: 90,
		MemoryHighPct: 85, MemoryHighWindowS: 120, MemoryLowPct: 15, MemoryLowWindowS: 240, UnneededS: 300,
		CooldownUpS: 60, CooldownDownS: 180, MaxInFlight: 3, DrainBufferS: 3600}
	want := Policy{MinNodes: 1, MaxNodes: 6, Step: 2, ReservedMin: 1, BootTimeout: 10 * time.Minute,
		ScaleUpDelay: 90 * time.Second, MemoryHighPct: 85, MemoryHighWindow: 2 * time.Minute, MemoryLowPct: 15,
		MemoryLowWindow: 4 * time.Minute, UnneededTime: 5 * time.Minute, CooldownAfterUp: time.Minute,
		CooldownAfterDown: 3 * time.Minute, MaxInFlight: 3, DrainBuffer: time.Hour}
	if diff := cmp.Diff(want, PolicyOf(c)); diff != "" {
		t.Errorf("PolicyOf (-want +got):\n%s", diff)
	}
}
