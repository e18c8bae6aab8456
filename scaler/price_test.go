package scaler

import (
	"context"
	"testing"

	kfleet "kashi/fleet"
	"kashi/fleet/sim"
	"kashi/models"
)

// pricedSim is the sim provider quoting a list price, as ctyun does where the key may read
// prices.
type pricedSim struct {
	*sim.Provider
	fen int64
}

func (p pricedSim) HourlyPrice(context.Context, kfleet.CreateRequest) (int64, error) {
	return p.fen, nil
}

// TestScaleUpPrice: a scale-up's event says what its machines cost per hour at list price,
// and the pool keeps the price with its source: the provider's quote when it gives one, else
// the pool's settings; without either, nothing.
func TestScaleUpPrice(t *testing.T) {
	tests := map[string]struct {
		settingFen, quoteFen int64
		wantFen              int64
		wantSource           string
	}{
		"from the settings":       {settingFen: 2550, wantFen: 2550, wantSource: models.PriceFromSettings},
		"the provider's quote":    {settingFen: 2550, quoteFen: 31012, wantFen: 31012, wantSource: models.PriceFromProvider},
		"no price known":          {},
		"a quote without setting": {quoteFen: 100, wantFen: 100, wantSource: models.PriceFromProvider},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			cfg := poolConfig()
			cfg.MinNodes, cfg.HourlyPriceFen = 2, tc.settingFen
			h := newScaleHarness(t, cfg, sim.Options{}, nil)
			if tc.quoteFen > 0 {
				h.scaler.cfg.Providers["sim"] = pricedSim{h.prov, tc.quoteFen}
			}
			h.tick(0)
			ovs, err := h.store.PoolOverviews(h.ctx, 10)
			if err != nil || len(ovs) != 1 || len(ovs[0].Events) != 1 {
				t.Fatalf("PoolOverviews = %+v, %v; want one pool with its scale-up", ovs, err)
			}
			ev, st := ovs[0].Events[0], ovs[0].State
			if ev.Kind != string(ActionScaleUp) || ev.ToSize-ev.FromSize != 2 || ev.HourlyCostFen != 2*tc.wantFen {
				t.Errorf("event = %s %d→%d costing %d fen/h, want a scale-up by 2 costing %d", ev.Kind, ev.FromSize, ev.ToSize,
					ev.HourlyCostFen, 2*tc.wantFen)
			}
			if st.HourlyPriceFen != tc.wantFen || st.PriceSource != tc.wantSource {
				t.Errorf("pool price = %d fen/h from %q, want %d from %q", st.HourlyPriceFen, st.PriceSource, tc.wantFen, tc.wantSource)
			}
		})
	}
}
