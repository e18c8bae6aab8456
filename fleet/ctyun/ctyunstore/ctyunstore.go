// Package ctyunstore gives the ctyun provider what it keeps in Kashi's database: the cloud
// settings of the ctyun pools (their configuration) and the open create orders (the
// cloud_orders table), so that a restarted server polls its predecessor's orders.
package ctyunstore

import (
	"context"

	"kashi/fleet"
	"kashi/fleet/ctyun"
	"kashi/models"
)

// Provider is the provider name of China Telecom Cloud pools.
const Provider = "ctyun"

// Store implements ctyun.Pools and ctyun.Orders over the store.
type Store struct{ S *models.Store }

// NewProvider builds the ctyun provider over s: the pools' settings and the open orders come
// from the store, the rest (key pair, endpoint, user data) from cfg.
func NewProvider(s *models.Store, cfg ctyun.Config) (*ctyun.Provider, error) {
	st := Store{S: s}
	cfg.Pools, cfg.Orders = st, st
	return ctyun.New(cfg)
}

// Settings implements ctyun.Pools.
func (st Store) Settings(ctx context.Context, pool string) (ctyun.PoolSettings, error) {
	cp, err := st.S.ConfiguredPoolByName(ctx, pool)
	if err != nil {
		return ctyun.PoolSettings{}, err
	}
	c := cp.Config
	return ctyun.PoolSettings{Region: c.Region, Zone: c.Zone, VPC: c.VPC, Subnet: c.Subnet,
		SecurityGroup: c.SecurityGroup, DiskType: c.DiskType, DiskGB: c.DiskGB}, nil
}

// Zones implements ctyun.Pools: the regions and zones of the ctyun pools.
func (st Store) Zones(ctx context.Context) ([]ctyun.Zone, error) {
	pools, err := st.S.ConfiguredPools(ctx)
	if err != nil {
		return nil, err
	}
	var out []ctyun.Zone
	seen := make(map[ctyun.Zone]bool)
	for _, cp := range pools {
		z := ctyun.Zone{Region: cp.Config.Region, Zone: cp.Config.Zone}
		if cp.Config.Provider == Provider && z.Region != "" && !seen[z] {
			seen[z] = true
			out = append(out, z)
		}
	}
	return out, nil
}

// SaveOrder implements ctyun.Orders.
func (st Store) SaveOrder(ctx context.Context, o ctyun.Order) error {
	m := o.Machine
	return st.S.SaveCloudOrder(ctx, models.CloudOrder{Provider: Provider, MachineKey: m.IdempotencyKey, MachineID: m.ID,
		Pool: m.Pool, OrderID: o.ID, Flavor: m.Flavor, CreatedAt: m.CreatedAt}, m.Tags)
}

// OpenOrders implements ctyun.Orders.
func (st Store) OpenOrders(ctx context.Context) ([]ctyun.Order, error) {
	rows, err := st.S.CloudOrders(ctx, Provider)
	if err != nil {
		return nil, err
	}
	out := make([]ctyun.Order, len(rows))
	for i, r := range rows {
		out[i] = ctyun.Order{ID: r.OrderID, Machine: fleet.Machine{ID: r.MachineID, Pool: r.Pool, IdempotencyKey: r.MachineKey,
			State: fleet.StateCreating, Flavor: r.Flavor, Tags: r.TagMap(), CreatedAt: r.CreatedAt}}
	}
	return out, nil
}

// CloseOrder implements ctyun.Orders.
func (st Store) CloseOrder(ctx context.Context, machineID string) error {
	return st.S.CloseCloudOrder(ctx, Provider, machineID)
}

var (
	_ ctyun.Pools  = Store{}
	_ ctyun.Orders = Store{}
)
