package models

import (
	"context"
	"fmt"
)

// PoolOverview is what the pools page and GET /api/v1/pools show of one pool: its
// configuration, the scaling loop's last look at it, its nodes, the machines still booting,
// its latest scaling events and who changed it last.
type PoolOverview struct {
	ConfiguredPool
	// State is the scaling loop's memory of the pool; zero before its first tick.
	State PoolScaleState
	Nodes []NodeGPUs
	// Booting are the machines asked for whose agent has not registered.
	Booting []Machine
	// Events are the latest scaling events, newest first.
	Events []ScalingEvent
	// LastChange is the latest configuration version (At and By); zero when none.
	LastChange PoolPolicyVersion
}

// PoolOverviews reads every configured pool's overview with its latest events (at most
// events each) in a fixed number of queries, whatever the number of pools.
func (s *Store) PoolOverviews(ctx context.Context, events int) ([]PoolOverview, error) {
	pools, err := s.ConfiguredPools(ctx)
	if err != nil {
		return nil, err
	}
	states, err := s.PoolScaleStates(ctx)
	if err != nil {
		return nil, err
	}
	nodes, err := s.Nodes(ctx)
	if err != nil {
		return nil, err
	}
	db := s.db.WithContext(ctx)
	var booting []Machine
	if err := db.Where("state IN ?", []string{MachinePending, MachineCreating}).Order("id").Find(&booting).Error; err != nil {
		return nil, fmt.Errorf("models: booting machines: %w", err)
	}
	var evs []ScalingEvent
	if err := db.Raw(`SELECT * FROM (SELECT scaling_events.*, ROW_NUMBER() OVER (PARTITION BY pool_id ORDER BY at DESC, id DESC) AS rn
		FROM scaling_events) e WHERE rn <= ? ORDER BY pool_id, at DESC, id DESC`, events).Scan(&evs).Error; err != nil {
		return nil, fmt.Errorf("models: latest scaling events: %w", err)
	}
	var versions []PoolPolicyVersion
	if err := db.Raw(`SELECT * FROM (SELECT pool_policy_versions.*, ROW_NUMBER() OVER (PARTITION BY pool_id ORDER BY version DESC) AS rn
		FROM pool_policy_versions) v WHERE rn = 1`).Scan(&versions).Error; err != nil {
		return nil, fmt.Errorf("models: latest pool versions: %w", err)
	}
	at := make(map[int64]int, len(pools))
	out := make([]PoolOverview, len(pools))
	for i, p := range pools {
		at[p.ID] = i
		out[i] = PoolOverview{ConfiguredPool: p, State: states[p.ID]}
	}
	for _, n := range nodes {
		if i, ok := at[n.PoolID]; ok {
			out[i].Nodes = append(out[i].Nodes, n)
		}
	}
	for _, m := range booting {
		if i, ok := at[m.PoolID]; ok {
			out[i].Booting = append(out[i].Booting, m)
		}
	}
	for _, e := range evs {
		if i, ok := at[e.PoolID]; ok {
			out[i].Events = append(out[i].Events, e)
		}
	}
	for _, v := range versions {
		if i, ok := at[v.PoolID]; ok {
			out[i].LastChange = v
		}
	}
	return out, nil
}
