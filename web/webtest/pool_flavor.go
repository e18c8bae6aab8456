// A cloud's flavor list, stubbed, for the pool form's tests.

package webtest

import (
	"context"

	"kashi/scaler"
)

// StubFlavors lists flavors of the "ctyun" provider by region, or fails.
type StubFlavors struct{ Err error }

// List is the flavors of region of the "ctyun" provider, found (true) or failing with Err;
// other providers are not found. Region cn-gz1 has two A100 flavors (the 8-card one states
// 25 Gb/s between machines), any other one T4 flavor.
func (s *StubFlavors) List(_ context.Context, provider, region, zone string) ([]scaler.Flavor, bool, error) {
	if provider != "ctyun" {
		return nil, false, nil
	}
	if s.Err != nil {
		return nil, true, s.Err
	}
	if region != "cn-gz1" {
		return []scaler.Flavor{{Name: "pi7.4xlarge.t4", GPUs: 4, GPUModel: "T4", MemoryMiB: 16 * 1024}}, true, nil
	}
	return []scaler.Flavor{{Name: "pi7.8xlarge.a100", GPUs: 8, GPUModel: "A100", MemoryMiB: 80 * 1024, InterNodeGbps: 25},
		{Name: "pi7.4xlarge.a100", GPUs: 4, GPUModel: "A100", MemoryMiB: 80 * 1024}}, true, nil
}
