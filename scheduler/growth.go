package scheduler

import (
	"context"
	"slices"
	"time"

	"kashi/models"
)

// growth is what each pool the scaling loop grows is expected to add (see Growth): its
// machines booting, each expected ready a typical boot after it was asked (the median of the
// pool's latest bootSamples boots, else half the boot timeout), and room up to its largest
// size, after the cooldown since it last grew. The room is counted from the larger of the
// pool's live and booting machines and the size the scaling loop last counted (Desired):
// the loop counts a lost node until it is removed, and adds no machine in its place.
func (l *Loop) growth(ctx context.Context, pools []models.ConfiguredPool, nodes []models.NodeGPUs) ([]Growth, error) {
	var out []Growth
	states, err := l.store.PoolScaleStates(ctx)
	if err != nil {
		return nil, err
	}
	for _, p := range pools {
		if !p.Config.Enabled || p.Provider == "" || p.Provider == "static" || p.Config.MaxNodes <= 0 {
			continue
		}
		ms, err := l.store.Machines(ctx, p.ID)
		if err != nil {
			return nil, err
		}
		boots, err := l.store.PoolBoots(ctx, p.ID, bootSamples)
		if err != nil {
			return nil, err
		}
		cfg := p.Config.WithDefaults()
		g := Growth{Spec: cfg.Spec, Region: cfg.Region, AnySpec: cfg.AnySpec, GPUsPerNode: p.GPUsPerNode, Batch: cfg.MaxInFlight,
			Step: cfg.Step, Delay: seconds(cfg.ScaleUpDelayS), Every: seconds(cfg.CooldownUpS), Period: l.cfg.ScalePeriod}
		var asked []time.Time
		for _, m := range ms {
			if m.ReadyAt == nil && (m.State == models.MachinePending || m.State == models.MachineCreating) {
				asked = append(asked, m.CreatedAt)
			}
		}
		g.Boot = seconds(cfg.BootTimeoutS) / 2
		if len(boots) > 0 {
			slices.Sort(boots)
			g.Boot = boots[len(boots)/2]
		}
		for _, at := range asked {
			g.Booting = append(g.Booting, at.Add(g.Boot))
		}
		live := 0
		for _, n := range nodes {
			if n.Pool == p.Name && (n.State == models.NodeReady || n.State == models.NodeDraining) {
				live++
			}
		}
		size := live + len(asked)
		if st, ok := states[p.ID]; ok {
			// The scaling loop's own count of the pool, as it compares it with the pool's
			// largest size (a lost node's machine counts until the node is removed).
			size = max(size, st.Desired)
			if st.LastScaleUpAt != nil {
				g.LastUp = *st.LastScaleUpAt
			}
		}
		g.Room = max(cfg.MaxNodes-size, 0)
		out = append(out, g)
	}
	return out, nil
}

// bootSamples is how many of a pool's latest boots its typical boot is read from.
const bootSamples = 20

func seconds(s int64) time.Duration { return time.Duration(s) * time.Second }
