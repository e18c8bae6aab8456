package scaler

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	kfleet "kashi/fleet"
	"kashi/fleet/sim"
)

// zoned is the sim provider with flavors by zone, counting the calls.
type zoned struct {
	*sim.Provider
	calls int
	err   error
}

func (z *zoned) FlavorsIn(_ context.Context, region, zone string) ([]kfleet.Flavor, error) {
	z.calls++
	if z.err != nil {
		return nil, z.err
	}
	return []kfleet.Flavor{{Name: region + "." + zone, GPUs: 8}}, nil
}

// TestFlavors: the flavors of a region and zone are asked of the provider once per TTL,
// a failure is not kept, a provider without zones answers its flavors, and an unknown
// provider is not ok.
func TestFlavors(t *testing.T) {
	ctx := context.Background()
	now := st0
	z := &zoned{Provider: sim.New(sim.Options{})}
	f := NewFlavors(map[string]kfleet.Provider{"ctyun": z, "sim": sim.New(sim.Options{})}, time.Minute, func() time.Time { return now })
	for range 2 {
		got, ok, err := f.List(ctx, "ctyun", "cn-gz1", "az1")
		if diff := cmp.Diff([]kfleet.Flavor{{Name: "cn-gz1.az1", GPUs: 8}}, got); diff != "" || !ok || err != nil {
			t.Fatalf("List(ctyun, cn-gz1, az1) = %v, %v (-want +got):\n%s", ok, err, diff)
		}
	}
	if z.calls != 1 {
		t.Errorf("the provider was asked %d times within the TTL, want 1", z.calls)
	}
	now = now.Add(time.Minute)
	z.err = errors.New("ctyun: flavor/list: auth")
	if _, ok, err := f.List(ctx, "ctyun", "cn-gz1", "az1"); !ok || err == nil {
		t.Errorf("List with the API failing = %v, %v; want ok and the error", ok, err)
	}
	z.err = nil
	if _, _, err := f.List(ctx, "ctyun", "cn-gz1", "az1"); err != nil || z.calls != 3 {
		t.Errorf("List after a failure = %v with %d calls, want it asked again (3)", err, z.calls)
	}
	if got, ok, err := f.List(ctx, "sim", "", ""); !ok || err != nil || len(got) != len(sim.DefaultFlavors) {
		t.Errorf("List(sim) = %v, %v, %v; want the sim flavors", got, ok, err)
	}
	if _, ok, _ := f.List(ctx, "static", "", ""); ok {
		t.Errorf("List(static) is ok, want no provider")
	}
}
