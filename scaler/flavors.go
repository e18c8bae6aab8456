package scaler

import (
	"context"
	"sync"
	"time"

	kfleet "kashi/fleet"
)

// Flavor is a machine type a provider offers (fleet.Flavor), as the pool form lists it.
type Flavor = kfleet.Flavor

// DefaultFlavorTTL is how long a provider's flavor list is kept.
const DefaultFlavorTTL = 5 * time.Minute

// Flavors lists the configured providers' flavors for the pool form, kept for a few minutes
// so that opening the form does not call the cloud each time, while a new flavor or one sold
// out shows up soon. Failures are not kept. It is safe for concurrent use.
type Flavors struct {
	providers map[string]kfleet.Provider
	ttl       time.Duration
	now       func() time.Time

	mu    sync.Mutex
	cache map[flavorKey]flavorList
}

type flavorKey struct{ provider, region, zone string }

type flavorList struct {
	flavors []Flavor
	at      time.Time
}

// NewFlavors returns the lists of providers' flavors, kept for ttl (zero: DefaultFlavorTTL).
func NewFlavors(providers map[string]kfleet.Provider, ttl time.Duration, now func() time.Time) *Flavors {
	if ttl <= 0 {
		ttl = DefaultFlavorTTL
	}
	return &Flavors{providers: providers, ttl: ttl, now: now, cache: make(map[flavorKey]flavorList)}
}

// List returns the flavors provider offers in region and zone (a provider without zones
// answers its flavors wherever), in the provider's order; ok is false
// when no provider of that name is configured.
func (f *Flavors) List(ctx context.Context, provider, region, zone string) (flavors []Flavor, ok bool, err error) {
	prov, ok := f.providers[provider]
	if !ok {
		return nil, false, nil
	}
	k := flavorKey{provider, region, zone}
	now := f.now()
	f.mu.Lock()
	c, hit := f.cache[k]
	f.mu.Unlock()
	if hit && now.Sub(c.at) < f.ttl {
		return c.flavors, true, nil
	}
	if zf, byZone := prov.(kfleet.ZoneFlavorer); byZone && region != "" {
		flavors, err = zf.FlavorsIn(ctx, region, zone)
	} else {
		flavors, err = prov.Flavors(ctx)
	}
	if err != nil {
		return nil, true, err
	}
	f.mu.Lock()
	f.cache[k] = flavorList{flavors: flavors, at: now}
	f.mu.Unlock()
	return flavors, true, nil
}
