package pools

import (
	"testing"

	"kashi/models"
	"kashi/scaler"
	poolsview "kashi/views/pools"
)

// A pool held at its maximum while demand waits says so; it used to read "steady".
func TestPoolState(t *testing.T) {
	on := models.PoolConfig{Enabled: true, MaxNodes: 6}
	atMax := []models.PoolSkip{{Reason: string(scaler.ReasonAtMaxSize), Detail: "8 GPUs of ready demand waited 40m > 2m; size 6 = max 6"}}
	tests := map[string]struct {
		p    poolInfo
		want string
	}{
		"off":                     {poolInfo{}, poolsview.PoolDisabled},
		"steady":                  {poolInfo{ConfiguredPool: models.ConfiguredPool{Config: on}, Size: 3, Desired: 3}, poolsview.PoolSteady},
		"growing":                 {poolInfo{ConfiguredPool: models.ConfiguredPool{Config: on}, Size: 3, Desired: 4}, poolsview.PoolGrowing},
		"at max with demand":      {poolInfo{ConfiguredPool: models.ConfiguredPool{Config: on}, Size: 6, Desired: 6, Skips: atMax}, poolsview.PoolAtMax},
		"growing beats at max":    {poolInfo{ConfiguredPool: models.ConfiguredPool{Config: on}, Size: 5, Desired: 6, Skips: atMax}, poolsview.PoolGrowing},
		"under max is not at max": {poolInfo{ConfiguredPool: models.ConfiguredPool{Config: on}, Size: 4, Desired: 4, Skips: atMax}, poolsview.PoolSteady},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := poolState(tc.p); got != tc.want {
				t.Errorf("poolState = %q, want %q", got, tc.want)
			}
		})
	}
}
