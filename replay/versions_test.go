package replay

import (
	"strings"
	"testing"
	"time"
)

// TestPoolVersionTakesOverMidTrace: a pool capped at 2 machines halfway through the trace
// never grows past 2 from the first scaling tick after the version's time, grows past it
// before, and costs less than the same pool without the version; the replay's events
// before the version are the unversioned replay's.
func TestPoolVersionTakesOverMidTrace(t *testing.T) {
	tr := openb(t)
	first, last := tr.Jobs[0].Submit, tr.Jobs[len(tr.Jobs)-1].Submit
	mid := at(first + (last-first)/2)
	plain := run(t, tr, Options{Fleet: elasticFleet()})
	versioned := elasticFleet()
	versioned.Pools[0].Versions = []Version{{From: mid, Scale: ScaleConfig{MinNodes: 1, MaxNodes: 2}}}
	res := run(t, tr, Options{Fleet: versioned})
	tick := int64(DefaultScaleInterval / time.Second)
	var before, after int
	for _, e := range res.ScaleEvents {
		switch {
		case e.AtS < mid.Unix():
			before = max(before, e.To)
		case e.Kind == "scale-up":
			after = max(after, e.To)
			if e.To > 2 && e.AtS >= mid.Unix()+tick {
				t.Errorf("scale event %+v after the cap at %s", e, mid)
			}
		}
	}
	if before <= 2 {
		t.Errorf("before the cap the pool reached %d nodes, want more than 2 (the trace's peaks)", before)
	}
	for i, e := range plain.ScaleEvents {
		if e.AtS >= mid.Unix() {
			break
		}
		if i >= len(res.ScaleEvents) || res.ScaleEvents[i] != e {
			t.Fatalf("event %d before the version: %+v, without the version %+v", i, res.ScaleEvents[i], e)
		}
	}
	if res.Cost.TotalFen >= plain.Cost.TotalFen || res.WaitS.Mean <= plain.WaitS.Mean {
		t.Errorf("capped from halfway: %d fen, mean wait %.0f s; uncapped %d fen, %.0f s; want cheaper and slower",
			res.Cost.TotalFen, res.WaitS.Mean, plain.Cost.TotalFen, plain.WaitS.Mean)
	}
}

// TestConfigRefusesBadVersions: a version needs a time after the one before it, settings
// in range, and an elastic pool.
func TestConfigRefusesBadVersions(t *testing.T) {
	t0 := time.Date(2026, 2, 15, 0, 0, 0, 0, time.UTC)
	for name, tc := range map[string]struct {
		versions []Version
		fixed    bool
		want     string
	}{
		"no time":      {versions: []Version{{Scale: ScaleConfig{MaxNodes: 2}}}, want: "versions[0].from is missing"},
		"out of order": {versions: []Version{{From: t0, Scale: ScaleConfig{MaxNodes: 2}}, {From: t0, Scale: ScaleConfig{MaxNodes: 3}}}, want: "versions[1].from must be after"},
		"bad bounds":   {versions: []Version{{From: t0, Scale: ScaleConfig{MinNodes: 3, MaxNodes: 2}}}, want: "versions[0].scale.min_nodes"},
		"negative":     {versions: []Version{{From: t0, Scale: ScaleConfig{MaxNodes: 2, UnneededTime: -time.Second}}}, want: "versions[0].scale.unneeded_time is negative"},
		"fixed pool":   {versions: []Version{{From: t0, Scale: ScaleConfig{MaxNodes: 2}}}, fixed: true, want: "only an elastic pool"},
	} {
		t.Run(name, func(t *testing.T) {
			c := elasticFleet()
			if tc.fixed {
				c.Pools[0].Scale, c.Pools[0].Nodes = nil, 2
			}
			c.Pools[0].Versions = tc.versions
			if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Validate() = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestParseConfigVersions: a fleet file gives a pool's later settings with their times.
func TestParseConfigVersions(t *testing.T) {
	c, err := ParseConfig(strings.NewReader(`
pools:
  - name: a100
    spec: A100
    gpus_per_node: 8
    scale: {max_nodes: 8, unneeded_time: 2h}
    versions:
      - from: 2026-02-15T00:00:00+08:00
        scale: {max_nodes: 8, unneeded_time: 10m}
`))
	if err != nil {
		t.Fatal(err)
	}
	vs := c.Pools[0].Versions
	if want := time.Date(2026, 2, 14, 16, 0, 0, 0, time.UTC); len(vs) != 1 || !vs[0].From.Equal(want) || vs[0].Scale.UnneededTime != 10*time.Minute {
		t.Errorf("versions = %+v, want one from %s with 10m unneeded", vs, want)
	}
}
