package pilot

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
)

var t0 = time.Date(2026, 2, 2, 0, 0, 0, 0, time.UTC)

func at(d time.Duration) time.Time { return t0.Add(d) }

// testPool is an elastic pool of 8-card machines, 1 to 3 of them, that catches a peak within
// 17 minutes (2 min delay + 15 min boot) and releases an empty machine after 25 (10 min
// unneeded, 10 min cooldown, 5 min of ticks).
func testPool() models.PoolConfig {
	return models.PoolConfig{GPUsPerNode: 8, MinNodes: 1, MaxNodes: 3, ScaleUpDelayS: 120, BootTimeoutS: 900,
		UnneededS: 600, CooldownDownS: 600}.WithDefaults()
}

// TestPeaks: a peak the pool grew for within its catch time is absorbed, with the scale-up's
// recorded reason; one it took an hour to meet is not; a task's wait for a scheduler tick is
// no peak.
func TestPeaks(t *testing.T) {
	cfg := testPool()
	nodes := []node{{id: 1, name: "n1", gpus: 8, from: at(0).Unix(), to: at(10 * time.Hour).Unix()},
		{id: 2, name: "n2", gpus: 8, from: at(time.Hour).Unix(), to: at(3 * time.Hour).Unix()},
		{id: 3, name: "n3", gpus: 8, from: at(5 * time.Hour).Unix(), to: at(9 * time.Hour).Unix()}}
	task := func(id int64, gpus int, sub, start, end time.Duration) models.TaskSpan {
		return models.TaskSpan{ID: id, Project: "p", GPUs: gpus, SubmittedAt: at(sub), StartedAt: at(start), EndedAt: at(end)}
	}
	in := Input{From: t0, To: at(10 * time.Hour), Tasks: []models.TaskSpan{
		task(1, 8, 0, 0, 10*time.Hour),                                   // n1 all along
		task(2, 8, 50*time.Minute, time.Hour, 2*time.Hour),               // waits 10 min for n2
		task(3, 8, 4*time.Hour, 5*time.Hour, 6*time.Hour),                // waits an hour for n3
		task(4, 1, 7*time.Hour, 7*time.Hour+30*time.Second, 8*time.Hour), // a tick's wait on n3
	}, Events: []models.ScalingEvent{{At: at(52 * time.Minute), Kind: "scale-up", Reason: "demand-waiting", FromSize: 1, ToSize: 2}}}
	r := Review{CatchS: cfg.ScaleUpDelayS + cfg.BootTimeoutS}
	from, to := in.From.Unix(), in.To.Unix()
	r.peaks(in, upSteps(nodes, from, to), demandSteps(in.Tasks, from, to), cfg, func(string) bool { return true })
	want := []Peak{
		{From: at(50 * time.Minute), To: at(time.Hour), ShortGPUs: 8, Tasks: 1, Waited: 1, MaxWaitS: 600, MeanWait: 600,
			Grew: true, Absorbed: true, Reasons: in.Events},
		{From: at(4 * time.Hour), To: at(5 * time.Hour), ShortGPUs: 8, Tasks: 1, Waited: 1, MaxWaitS: 3600, MeanWait: 3600, Grew: true},
	}
	if diff := cmp.Diff(want, r.Peaks); diff != "" {
		t.Errorf("peaks (-want +got):\n%s", diff)
	}
}

// TestTroughs: an empty machine above the pool's minimum counts as kept from its release time
// on; the machine the minimum keeps does not.
func TestTroughs(t *testing.T) {
	cfg := testPool()
	nodes := []node{{id: 1, name: "n1", gpus: 8, from: at(0).Unix(), to: at(10 * time.Hour).Unix(), gpuIDs: map[int64]bool{11: true}},
		{id: 3, name: "n3", gpus: 8, from: at(5 * time.Hour).Unix(), to: at(9 * time.Hour).Unix(), gpuIDs: map[int64]bool{31: true}}}
	in := Input{From: t0, To: at(10 * time.Hour), AsOf: at(10 * time.Hour)}
	in.Window.Allocations = []models.LedgerAllocation{{GPUID: 31, NodeID: 3, Start: at(5 * time.Hour).Unix(), End: at(6 * time.Hour).Unix()},
		{GPUID: 11, NodeID: 1, Start: at(0).Unix(), End: at(10 * time.Hour).Unix()}}
	var r Review
	r.troughs(in, nodes, cfg)
	// n3 empty 6 h → 9 h, kept from 6 h 25 m.
	want := []Trough{{Node: "n3", From: at(6*time.Hour + 25*time.Minute), To: at(9 * time.Hour)}}
	if r.KeptS != 2*3600+35*60 || r.KeptMost != 1 || !cmp.Equal(r.Troughs, want) {
		t.Errorf("troughs %+v kept %d s, most %d; want %+v, 9300 s of one machine", r.Troughs, r.KeptS, r.KeptMost, want)
	}
	// Without its task n1 is empty too: from 5 h, when n3 is up, one of them was above the
	// minimum; before and after, n1 is the minimum.
	in.Window.Allocations = in.Window.Allocations[:1]
	r = Review{}
	r.troughs(in, nodes, cfg)
	if r.KeptS != 4*3600 || r.KeptMost != 1 {
		t.Errorf("troughs kept %d s, most %d; want 4 h of one machine", r.KeptS, r.KeptMost)
	}
}
