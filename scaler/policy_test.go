package scaler

import (
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
)

func TestPolicyWithDefaults(t *testing.T) {
	want := Policy{MaxNodes: 3, Step: 1, BootTimeout: 15 * time.Minute, BootFailureLimit: 3, BootBackoffMax: 4 * time.Hour,
		ScaleUpDelay:  2 * time.Minute,
		MemoryHighPct: 80, MemoryHighWindow: 5 * time.Minute, MemoryLowPct: 20, MemoryLowWindow: 10 * time.Minute,
		UnneededTime: 10 * time.Minute, CooldownAfterUp: 10 * time.Minute, CooldownAfterDown: 10 * time.Minute,
		MaxInFlight: 4, DrainBuffer: 30 * time.Minute, AtMaxAlertAfter: 30 * time.Minute, Reclaim: ReclaimPolicy{IdleTime: 30 * time.Minute,
			Grace: 30 * time.Minute, KeepFor: 2 * time.Hour, MaxKeepsPerDay: 2, SetupGrace: 15 * time.Minute}}
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
		} else if f.CanFloat() {
			f.SetFloat(float64(i + 1))
		}
	}
	set.Reclaim = ReclaimPolicy{Off: true, IdleTime: 1, Grace: 2, KeepFor: 3, MaxKeepsPerDay: 4, SetupGrace: 5}
	if diff := cmp.Diff(set, set.WithDefaults()); diff != "" {
		t.Errorf("WithDefaults of a full policy (-want +got):\n%s", diff)
	}
}

func TestPolicyOf(t *testing.T) {
	c := models.PoolConfig{MinNodes: 1, MaxNodes: 6, Step: 2, ReservedMin: 1, BootTimeoutS: 600, ScaleUpDelayS: 90,
		MemoryHighPct: 85, MemoryHighWindowS: 120, MemoryLowPct: 15, MemoryLowWindowS: 240, UnneededS: 300,
		CooldownUpS: 60, CooldownDownS: 180, MaxInFlight: 3, DrainBufferS: 3600, AtMaxAlertS: 900, ReclaimOff: true, ReclaimIdleS: 600,
		ReclaimGraceS: 300, ReclaimKeepForS: 3600, ReclaimKeepsPerDay: 3, ReclaimSetupGraceS: 120}
	want := Policy{MinNodes: 1, MaxNodes: 6, Step: 2, ReservedMin: 1, BootTimeout: 10 * time.Minute,
		ScaleUpDelay: 90 * time.Second, MemoryHighPct: 85, MemoryHighWindow: 2 * time.Minute, MemoryLowPct: 15,
		MemoryLowWindow: 4 * time.Minute, UnneededTime: 5 * time.Minute, CooldownAfterUp: time.Minute,
		CooldownAfterDown: 3 * time.Minute, MaxInFlight: 3, DrainBuffer: time.Hour, AtMaxAlertAfter: 15 * time.Minute,
		Reclaim: ReclaimPolicy{Off: true,
			IdleTime: 10 * time.Minute, Grace: 5 * time.Minute, KeepFor: time.Hour, MaxKeepsPerDay: 3, SetupGrace: 2 * time.Minute}}
	if diff := cmp.Diff(want, PolicyOf(c)); diff != "" {
		t.Errorf("PolicyOf (-want +got):\n%s", diff)
	}
}

func TestReclaimOf(t *testing.T) {
	pool := &models.PoolConfig{ReclaimIdleS: 600, ReclaimGraceS: 300, ReclaimKeepsPerDay: 5}
	def := ReclaimPolicy{IdleTime: 30 * time.Minute, Grace: 30 * time.Minute, KeepFor: 2 * time.Hour, MaxKeepsPerDay: 2,
		SetupGrace: 15 * time.Minute}
	tests := map[string]struct {
		in   models.ReclaimSettings
		want ReclaimPolicy
	}{
		"no pool configuration, no override: the defaults": {models.ReclaimSettings{}, def},
		"the pool's, defaults for the rest": {models.ReclaimSettings{Pool: pool}, ReclaimPolicy{IdleTime: 10 * time.Minute,
			Grace: 5 * time.Minute, KeepFor: 2 * time.Hour, MaxKeepsPerDay: 5, SetupGrace: 15 * time.Minute}},
		"the project's override over the pool's": {
			models.ReclaimSettings{Pool: pool, Override: models.ReclaimOverride{IdleS: 7200, KeepForS: 60, KeepsPerDay: 1, SetupGraceS: 3600}},
			ReclaimPolicy{IdleTime: 2 * time.Hour, Grace: 5 * time.Minute, KeepFor: time.Minute, MaxKeepsPerDay: 1, SetupGrace: time.Hour}},
		"the project opts out": {models.ReclaimSettings{Pool: pool, Override: models.ReclaimOverride{Never: true}},
			ReclaimPolicy{Off: true, IdleTime: 10 * time.Minute, Grace: 5 * time.Minute, KeepFor: 2 * time.Hour,
				MaxKeepsPerDay: 5, SetupGrace: 15 * time.Minute}},
		"the pool is off: no project turns it on": {models.ReclaimSettings{Pool: &models.PoolConfig{ReclaimOff: true},
			Override: models.ReclaimOverride{IdleS: 600}}, ReclaimPolicy{Off: true, IdleTime: 10 * time.Minute,
			Grace: 30 * time.Minute, KeepFor: 2 * time.Hour, MaxKeepsPerDay: 2, SetupGrace: 15 * time.Minute}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ReclaimOf(tc.in)); diff != "" {
				t.Errorf("ReclaimOf(%+v) (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}
