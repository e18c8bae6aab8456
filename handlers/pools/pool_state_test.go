package pools

import (
	"testing"

	"kashi/models"
	"kashi/scaler"
	"kashi/views"
)

// A pool held at its maximum while demand waits says so; it used to read "steady".
func TestPoolState(t *testing.T) {
	on := models.PoolConfig{Enabled: true, MaxNodes: 6}
	atMax := []models.PoolSkip{{Reason: string(scaler.ReasonAtMaxSize), Detail: "8 GPUs of ready demand waited 40m > 2m; size 6 = max 6"}}
	tests := map[string]struct {
		p    poolInfo
		want string
	}{
		"off":                     {poolInfo{}, views.PoolDisabled},
		"steady":                  {poolInfo{ConfiguredPool: models.ConfiguredPool{Config: on}, Size: 3, Desired: 3}, views.PoolSteady},
		"growing":                 {poolInfo{ConfiguredPool: models.ConfiguredPool{Config: on}, Size: 3, Desired: 4}, views.PoolGrowing},
		"at max with demand":      {poolInfo{ConfiguredPool: models.ConfiguredPool{Config: on}, Size: 6, Desired: 6, Skips: atMax}, views.PoolAtMax},
		"growing beats at max":    {poolInfo{ConfiguredPool: models.ConfiguredPool{Config: on}, Size: 5, Desired: 6, Skips: atMax}, views.PoolGrowing},
		"under max is not at max": {poolInfo{ConfiguredPool: models.ConfiguredPool{Config: on}, Size: 4, Desired: 4, Skips: atMax}, views.PoolSteady},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := poolState(tc.p); got != tc.want {
				t.Errorf("poolState = %q, want %q", got, tc.want)
			}
		})
	}
}
