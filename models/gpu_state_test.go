package models

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestGPUStatus(t *testing.T) {
	now := time.Date(2026, 3, 9, 14, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) *time.Time { t := now.Add(-d); return &t }
	marks := GPUMarks{StaleAfter: 2 * time.Minute, IdleAfter: 30 * time.Minute, SaturatedAfter: time.Hour}
	fresh := GPU{SampledAt: ago(10 * time.Second)}
	tests := map[string]struct {
		g    BoardGPU
		want GPUStatus
	}{
		"never sampled":          {BoardGPU{}, GPUStatus{State: GPUStale}},
		"free and fresh":         {BoardGPU{GPU: fresh}, GPUStatus{State: GPUFree}},
		"free but silent":        {BoardGPU{GPU: GPU{SampledAt: ago(3 * time.Minute)}}, GPUStatus{State: GPUStale}},
		"held and busy":          {BoardGPU{GPU: fresh, TaskID: 7}, GPUStatus{State: GPUBusy}},
		"held, idle a while":     {BoardGPU{GPU: GPU{SampledAt: fresh.SampledAt, IdleSince: ago(10 * time.Minute)}, TaskID: 7}, GPUStatus{State: GPUIdle}},
		"held, idle long":        {BoardGPU{GPU: GPU{SampledAt: fresh.SampledAt, IdleSince: ago(31 * time.Minute)}, TaskID: 7}, GPUStatus{State: GPUIdle, LongIdle: true}},
		"idle but free is free":  {BoardGPU{GPU: GPU{SampledAt: fresh.SampledAt, IdleSince: ago(5 * time.Hour)}}, GPUStatus{State: GPUFree}},
		"saturated long":         {BoardGPU{GPU: GPU{SampledAt: fresh.SampledAt, SaturatedSince: ago(61 * time.Minute)}, TaskID: 7}, GPUStatus{State: GPUBusy, LongSaturated: true}},
		"stale hides every mark": {BoardGPU{GPU: GPU{SampledAt: ago(time.Hour), IdleSince: ago(5 * time.Hour), SaturatedSince: ago(5 * time.Hour)}, TaskID: 7}, GPUStatus{State: GPUStale}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.g.Status(now, marks)); diff != "" {
				t.Errorf("Status (-want +got):\n%s", diff)
			}
		})
	}
}
