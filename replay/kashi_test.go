package replay

import (
	"bytes"
	"testing"
)

// kashiMaxWaitBound is the documented bound on any job's wait under the production policy
// on the openb trace at 4 nodes × 8 GPUs: no more than strict FIFO's longest wait there
// (59,401 s, an 8-GPU job waiting for the one node that month-long 1-GPU pods leave free),
// under 16.5 hours.
const kashiMaxWaitBound = 59_401

func TestKashiBeatsFIFOOnOpenb(t *testing.T) {
	tr := openb(t)
	fleet := FixedFleet(4, 8)
	fifo := run(t, tr, Options{Policy: PolicyFIFO, Fleet: fleet})
	for _, est := range []string{EstimatesExact, EstimatesNone} {
		k := run(t, tr, Options{Policy: PolicyKashi, Estimates: est, Fleet: fleet})
		checkInvariants(t, k, 32, false)
		if k.WaitS.Mean >= fifo.WaitS.Mean {
			t.Errorf("estimates %s: kashi mean wait %.1f s, fifo %.1f s: want kashi lower", est, k.WaitS.Mean, fifo.WaitS.Mean)
		}
		if k.WaitS.Max > kashiMaxWaitBound || k.WaitS.Max > fifo.WaitS.Max {
			t.Errorf("estimates %s: kashi max wait %d s, want ≤ %d and ≤ fifo's %d", est, k.WaitS.Max, kashiMaxWaitBound, fifo.WaitS.Max)
		}
		if k.TotalGPUHours != fifo.TotalGPUHours || k.Jobs != openbJobs {
			t.Errorf("estimates %s: kashi %d jobs, %s GPU-hours; fifo %s", est, k.Jobs, k.TotalGPUHours, fifo.TotalGPUHours)
		}
	}
}

func TestKashiInvariantsOnATinyFleet(t *testing.T) {
	res := run(t, openb(t), Options{Policy: PolicyKashi, Fleet: FixedFleet(2, 8)})
	checkInvariants(t, res, 16, false)
}

func TestReplayIsDeterministic(t *testing.T) {
	tr := openb(t)
	for _, opt := range []Options{
		{Policy: PolicyKashi, Fleet: FixedFleet(3, 8)},
		{Policy: PolicyFIFO, Fleet: FixedFleet(3, 8)},
		{Policy: PolicyKashi, Fleet: elasticFleet()},
	} {
		var outs [2][]byte
		for i := range outs {
			res := run(t, tr, opt)
			body, err := res.JSON()
			if err != nil {
				t.Fatal(err)
			}
			var jobs bytes.Buffer
			if err := res.WriteJobs(&jobs); err != nil {
				t.Fatal(err)
			}
			outs[i] = append(body, jobs.Bytes()...)
		}
		if !bytes.Equal(outs[0], outs[1]) {
			t.Errorf("%s on %d pools: two runs differ", opt.Policy, len(opt.Fleet.Pools))
		}
	}
}
