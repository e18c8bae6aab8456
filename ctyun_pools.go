package main

import (
	"context"
	"fmt"
	"os"

	"kashi/fleet/ctyun"
	"kashi/models"
)

// ctyunProvider is the provider name of China Telecom Cloud pools.
const ctyunProvider = "ctyun"

// ctyunCredentials returns the key pair in CTYUN_AK and CTYUN_SK, else the one in the file
// path (if given), else none.
func ctyunCredentials(getenv func(string) string, path string) (ctyun.Credentials, error) {
	c, ok, err := ctyun.CredentialsFromEnv(getenv)
	if ok || err != nil || path == "" {
		return c, err
	}
	if c, err = ctyun.LoadCredentials(path); err != nil {
		return c, fmt.Errorf("--ctyun-credentials: %w", err)
	}
	return c, nil
}

// newCtyun builds the ctyun provider over the store's pool settings.
func newCtyun(cfg serveConfig, store *models.Store) (*ctyun.Provider, error) {
	var userData []byte
	if cfg.CtyunUserData != "" {
		var err error
		if userData, err = os.ReadFile(cfg.CtyunUserData); err != nil {
			return nil, fmt.Errorf("--ctyun-user-data: %w", err)
		}
	}
	return ctyun.New(ctyun.Config{Credentials: cfg.ctyun, Endpoint: cfg.CtyunEndpoint, Pools: ctyunPools{store},
		UserData: userData})
}

// ctyunPools reads the cloud settings of ctyun pools from their configuration.
type ctyunPools struct{ store *models.Store }

// Settings implements ctyun.Pools.
func (p ctyunPools) Settings(ctx context.Context, pool string) (ctyun.PoolSettings, error) {
	cp, err := p.store.ConfiguredPoolByName(ctx, pool)
	if err != nil {
		return ctyun.PoolSettings{}, err
	}
	c := cp.Config
	return ctyun.PoolSettings{Region: c.Region, Zone: c.Zone, VPC: c.VPC, Subnet: c.Subnet,
		SecurityGroup: c.SecurityGroup, DiskType: c.DiskType, DiskGB: c.DiskGB}, nil
}

// Zones implements ctyun.Pools: the regions and zones of the ctyun pools.
func (p ctyunPools) Zones(ctx context.Context) ([]ctyun.Zone, error) {
	pools, err := p.store.ConfiguredPools(ctx)
	if err != nil {
		return nil, err
	}
	var out []ctyun.Zone
	seen := make(map[ctyun.Zone]bool)
	for _, cp := range pools {
		z := ctyun.Zone{Region: cp.Config.Region, Zone: cp.Config.Zone}
		if cp.Config.Provider == ctyunProvider && z.Region != "" && !seen[z] {
			seen[z] = true
			out = append(out, z)
		}
	}
	return out, nil
}
