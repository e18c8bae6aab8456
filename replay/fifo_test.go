package replay

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFIFONoWaitOnALargeFleet(t *testing.T) {
	tr := openb(t)
	res := run(t, tr, Options{Policy: PolicyFIFO, Fleet: FixedFleet(64, 8)})
	if res.Jobs != openbJobs || res.TotalGPUHours.String() != openbGPUHours {
		t.Errorf("Run = %d jobs, %s GPU-hours; want %d and %s", res.Jobs, res.TotalGPUHours, openbJobs, openbGPUHours)
	}
	if res.WaitS != (WaitStats{}) {
		t.Errorf("wait = %+v, want none", res.WaitS)
	}
	if res.PeakGPUsInUse != openbMaxGPUs {
		t.Errorf("peak = %d GPUs, want %d", res.PeakGPUsInUse, openbMaxGPUs)
	}
	for _, row := range jobRows(t, res) {
		if row.start != row.submit {
			t.Fatalf("job %s starts at %d, submitted at %d", row.id, row.start, row.submit)
		}
	}
}

func TestFIFOInvariantsOnASmallFleet(t *testing.T) {
	tr := openb(t)
	for _, fleet := range [][2]int{{2, 8}, {4, 8}, {1, 8}} {
		res := run(t, tr, Options{Policy: PolicyFIFO, Fleet: FixedFleet(fleet[0], fleet[1])})
		checkInvariants(t, res, fleet[0]*fleet[1], true)
		if res.TotalGPUHours.String() != openbGPUHours {
			t.Errorf("%v: %s GPU-hours, want %s", fleet, res.TotalGPUHours, openbGPUHours)
		}
		if res.WaitS.Max == 0 {
			t.Errorf("%v: no job waits on a small fleet", fleet)
		}
	}
}

// jobRow is one line of --jobs-out.
type jobRow struct {
	id                       string
	submit, start, end, gpus int64
	nodes                    string
}

func jobRows(t *testing.T, res *Result) []jobRow {
	t.Helper()
	var buf bytes.Buffer
	if err := res.WriteJobs(&buf); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&buf).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"job_id", "submit_ts", "start_ts", "end_ts", "gpus", "nodes"}, recs[0]); diff != "" {
		t.Fatalf("header (-want +got):\n%s", diff)
	}
	rows := make([]jobRow, len(recs)-1)
	for i, r := range recs[1:] {
		n := func(s string) int64 {
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				t.Fatalf("row %d: %v", i+1, err)
			}
			return v
		}
		rows[i] = jobRow{id: r[0], submit: n(r[1]), start: n(r[2]), end: n(r[3]), gpus: n(r[4]), nodes: r[5]}
	}
	return rows
}

// checkInvariants checks the jobs file: no job before its submit, never more cards asked at
// once than the fleet has, card-hours conserved, and with fifo the start order.
func checkInvariants(t *testing.T, res *Result, fleetGPUs int, fifo bool) {
	t.Helper()
	rows := jobRows(t, res)
	type ev struct{ at, delta int64 }
	var evs []ev
	var sec int64
	for i, r := range rows {
		if r.start < r.submit {
			t.Errorf("job %s starts at %d before its submit %d", r.id, r.start, r.submit)
		}
		if fifo && i > 0 && r.start < rows[i-1].start {
			t.Errorf("fifo: job %s starts at %d before job %s ahead of it (%d)", r.id, r.start, rows[i-1].id, rows[i-1].start)
		}
		sec += r.gpus * (r.end - r.start)
		evs = append(evs, ev{r.start, r.gpus}, ev{r.end, -r.gpus})
	}
	slices.SortFunc(evs, func(a, b ev) int {
		if a.at != b.at {
			return int(a.at - b.at)
		}
		return int(a.delta - b.delta) // releases first
	})
	var inUse int64
	for _, e := range evs {
		inUse += e.delta
		if inUse > int64(fleetGPUs) {
			t.Fatalf("%d GPUs in use at %d, the fleet has %d", inUse, e.at, fleetGPUs)
		}
	}
	if Hours(sec) != res.TotalGPUHours {
		t.Errorf("jobs file holds %s GPU-hours, result %s", Hours(sec), res.TotalGPUHours)
	}
	if res.PeakGPUsInUse > fleetGPUs {
		t.Errorf("peak %d GPUs > fleet %d", res.PeakGPUsInUse, fleetGPUs)
	}
}
