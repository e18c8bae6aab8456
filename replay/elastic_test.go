package replay

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// elasticFleet is one elastic pool of 8-GPU machines, 1 to 8 nodes, at 20 yuan a card-hour.
func elasticFleet() Config {
	return Config{Pools: []Pool{{Name: "a100", Spec: "A100", GPUsPerNode: 8, AnySpec: true, RateFen: 2000,
		BootTime: 3 * time.Minute, Scale: &ScaleConfig{MinNodes: 1, MaxNodes: 8}}}}
}

func TestElasticPoolFollowsDemand(t *testing.T) {
	tr := openb(t)
	res := run(t, tr, Options{Policy: PolicyKashi, Fleet: elasticFleet()})
	checkInvariants(t, res, 64, false)
	kinds := map[string]int{}
	for _, e := range res.ScaleEvents {
		kinds[e.Kind]++
		if e.To > 8 || e.To < 0 {
			t.Errorf("scale event %+v leaves the pool outside 0..8 nodes", e)
		}
	}
	if kinds["scale-up"] == 0 || kinds["drain"] == 0 || kinds["remove"] == 0 {
		t.Errorf("scale events by kind = %v, want scale-ups, drains and removals", kinds)
	}
	fixed := run(t, tr, Options{Policy: PolicyKashi, Fleet: Config{Pools: []Pool{{Name: "a100", Spec: "A100",
		GPUsPerNode: 8, Nodes: 8, AnySpec: true, RateFen: 2000}}}})
	if res.Cost.TotalFen >= fixed.Cost.TotalFen || res.IdleGPUHours >= fixed.IdleGPUHours {
		t.Errorf("elastic 1–8 nodes costs %d fen (%s idle h), fixed 8 nodes %d fen (%s idle h): want elastic cheaper",
			res.Cost.TotalFen, res.IdleGPUHours, fixed.Cost.TotalFen, fixed.IdleGPUHours)
	}
	// Cost is the pool's card-hours at its rate, rounded once.
	p := res.Cost.Pools[0]
	if want := (int64(p.GPUHours)*2000 + 1800) / 3600; p.Fen != want || res.Cost.TotalFen != want {
		t.Errorf("cost = %+v, want %d fen", res.Cost, want)
	}
}

func TestSlowerScaleUpMeansLongerWaits(t *testing.T) {
	tr := openb(t)
	params, err := ParseSweep("scale_up_mem=1;scale_up_delay=1m,2h;cooldown=10m")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := Sweep(tr, Options{Fleet: elasticFleet()}, Combinations(params), 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{rows[0].Setting, rows[1].Setting}
	if diff := cmp.Diff([]string{"scale_up_mem=1 scale_up_delay=1m cooldown=10m", "scale_up_mem=1 scale_up_delay=2h cooldown=10m"}, got); diff != "" {
		t.Errorf("settings (-want +got):\n%s", diff)
	}
	fast, slow := rows[0].Result, rows[1].Result
	if !(slow.WaitS.Mean > fast.WaitS.Mean) {
		t.Errorf("mean wait with a 2h scale-up delay %.1f s, with 1m %.1f s: want longer", slow.WaitS.Mean, fast.WaitS.Mean)
	}
	var table strings.Builder
	if err := WriteTable(&table, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "scale_up_mem=1 scale_up_delay=2h cooldown=10m") || strings.Count(table.String(), "\n") != 3 {
		t.Errorf("table:\n%s", table.String())
	}
}

func TestMachinesThatNeverBootEndTheReplay(t *testing.T) {
	tr, err := Read(strings.NewReader("job_id,submit_ts,gpus,duration_s\na,0,8,60\n"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Machines take longer to boot than the boot timeout: each is given up before it is ready,
	// and the pool stops asking for more after the limit of failures in a row, as the
	// server's does; nothing resumes it in a replay.
	fleet := Config{Pools: []Pool{{Name: "p", Spec: "A100", GPUsPerNode: 8, AnySpec: true, BootTime: 20 * time.Minute,
		Scale: &ScaleConfig{MaxNodes: 2, BootTimeout: 15 * time.Minute}}}}
	_, err = Run(tr, Options{Fleet: fleet})
	if err == nil || !strings.Contains(err.Error(), "stuck") ||
		!strings.Contains(err.Error(), "pool p stopped asking for machines after 3 boot failures in a row") {
		t.Errorf("Run = %v, want an error saying the replay is stuck because pool p stopped after 3 boot failures", err)
	}
	fleet.Pools[0].Scale.BootFailureLimit = 5
	if _, err = Run(tr, Options{Fleet: fleet}); err == nil || !strings.Contains(err.Error(), "after 5 boot failures") {
		t.Errorf("Run with a limit of 5 = %v, want the pool stopped after 5", err)
	}
	fleet.Pools[0].BootTime = 5 * time.Minute
	res := run(t, tr, Options{Fleet: fleet})
	// Demand waits past the 2 min scale-up delay (the first tick after it is at 150 s), then
	// the machine boots for 5 min.
	if res.WaitS.Max != 150+300 {
		t.Errorf("wait = %+v, want 450 s", res.WaitS)
	}
}
