package pools

import (
	"strings"
	"testing"
	"time"

	"kashi/views/viewstest"
)

// Demand above the pool's size is shaded, sample by sample; demand the pool held is not.
func TestPoolChartShadesUnmetDemand(t *testing.T) {
	from := viewstest.T0.Add(-time.Hour)
	p := PoolView{GPUsPerNode: 8, MaxNodes: 4, Size: 4, Samples: []PoolSample{
		{At: from, Size: 2, DemandGPUs: 8},                        // 1 node of demand, 2 held: met
		{At: from.Add(20 * time.Minute), Size: 4, DemandGPUs: 48}, // 6 nodes wanted, 4 at max
		{At: from.Add(40 * time.Minute), Size: 4, DemandGPUs: 16}, // met again
	}}
	c := poolChart(p, from, viewstest.T0)
	if n := strings.Count(c.Unmet, "Z"); n != 1 {
		t.Fatalf("unmet path %q has %d areas, want 1 (the middle sample)", c.Unmet, n)
	}
	p.Samples = p.Samples[:1]
	if c := poolChart(p, from, viewstest.T0); c.Unmet != "" {
		t.Errorf("unmet path = %q for met demand, want none", c.Unmet)
	}
}
