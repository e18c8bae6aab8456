package replay

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadSkipsMessyRows(t *testing.T) {
	in := "\ufeffJob_ID,submit_ts,gpus,start_ts,end_ts,group,spec,extra\n" +
		"a,10,1,100,160,LS,,x\n" +
		"b,5,2,0,0,BE,A100,\n" + // zero duration is a job
		"c,7,0,0,10,LS,,\n" + // no GPUs
		"d,7,-2,0,10,LS,,\n" + // no GPUs
		"e,8,1,50,40,LS,,\n" + // negative duration
		"f,x,1,0,10,LS,,\n" + // unparsable submit
		"g,9,1,,10,LS,,\n" + // empty start
		",9,1,0,10,LS,,\n" + // empty id
		"\"h,9,1,0,10\n" + // open quote
		"\n" +
		"\"i,1\",2026-01-01T00:00:01Z,1,1.4,2.6\r\n" + // quoted id, RFC 3339 submit, decimals
		"j,5,1,0,3\n" // short row: no group
	tr, err := Read(strings.NewReader(in), ReadOptions{})
	if err != nil {
		t.Fatalf("Read = %v", err)
	}
	want := []Job{
		{ID: "b", Row: 2, Submit: 5, Duration: 0, GPUs: 2, Group: "BE", Spec: "A100"},
		{ID: "j", Row: 11, Submit: 5, Duration: 3, GPUs: 1},
		{ID: "a", Row: 1, Submit: 10, Duration: 60, GPUs: 1, Group: "LS"},
		{ID: "i,1", Row: 10, Submit: 1767225601, Duration: 2, GPUs: 1},
	}
	if diff := cmp.Diff(want, tr.Jobs); diff != "" {
		t.Errorf("jobs (-want +got):\n%s", diff)
	}
	wantSkip := map[string]int{SkipNoGPUs: 2, SkipNegativeDuration: 1, SkipUnparsable: 3, SkipBadCSV: 1}
	if diff := cmp.Diff(wantSkip, tr.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}

// A job_id that two usable rows share is refused, naming both lines and the id: the old
// reader replayed the job twice. A row skipped for a cause of its own does not count.
func TestReadRefusesARepeatedID(t *testing.T) {
	in := "job_id,submit_ts,gpus,duration_s\n" +
		"a,0,1,60\n" +
		"b,0,0,60\n" + // skipped: no GPUs
		"\n" +
		"b,1,1,60\n" +
		"c,2,1,60\n" +
		"a,3,2,60\n"
	_, err := Read(strings.NewReader(in), ReadOptions{})
	var dup *DuplicateIDError
	if !errors.As(err, &dup) || *dup != (DuplicateIDError{ID: "a", Line: 7, First: 2}) {
		t.Fatalf("Read = %v, want job_id \"a\" of line 2 repeated on line 7", err)
	}
	if want := `replay: line 7 repeats job_id "a" of line 2`; !strings.Contains(err.Error(), want) {
		t.Errorf("Read = %q, want it to say %q", err, want)
	}
}

// Fractional seconds are rounded to the nearest second, a half away from zero, in numbers
// and in RFC 3339 times alike (docs/guide.md, Replay).
func TestReadRoundsFractionalSeconds(t *testing.T) {
	in := "job_id,submit_ts,gpus,duration_s\n" +
		"a,1.5,1,0.49\n" +
		"b,2.5,1,0.5\n" +
		"c,2026-01-01T00:00:00.5Z,1,59.999\n" +
		"d,2026-01-01T00:00:00.499Z,1,-0.4\n" +
		"e,3,1,-0.5\n" // −1 s: skipped
	tr, err := Read(strings.NewReader(in), ReadOptions{})
	if err != nil {
		t.Fatalf("Read = %v", err)
	}
	want := []Job{
		{ID: "a", Row: 1, Submit: 2, Duration: 0, GPUs: 1},
		{ID: "b", Row: 2, Submit: 3, Duration: 1, GPUs: 1},
		{ID: "d", Row: 4, Submit: 1767225600, Duration: 0, GPUs: 1},
		{ID: "c", Row: 3, Submit: 1767225601, Duration: 60, GPUs: 1},
	}
	if diff := cmp.Diff(want, tr.Jobs); diff != "" {
		t.Errorf("jobs (-want +got):\n%s", diff)
	}
	if tr.Skipped[SkipNegativeDuration] != 1 {
		t.Errorf("skipped = %v, want the −0.5 s duration skipped", tr.Skipped)
	}
}

func TestReadDurationColumn(t *testing.T) {
	tr, err := Read(strings.NewReader("job_id,submit_ts,gpus,duration_s\nx,3,4,-1\ny,3,4,3600\n"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []Job{{ID: "y", Row: 2, Submit: 3, Duration: 3600, GPUs: 4}}
	if diff := cmp.Diff(want, tr.Jobs); diff != "" || tr.Skipped[SkipNegativeDuration] != 1 {
		t.Errorf("jobs (-want +got):\n%s; skipped %v", diff, tr.Skipped)
	}
}

func TestReadRejectsWhatIsNotATrace(t *testing.T) {
	tests := map[string]struct {
		in, want string
		max      int
	}{
		"empty":          {"", "empty", 0},
		"blank lines":    {"\n\n", "empty", 0},
		"binary":         {"\x89PNG\r\n\x1a\n\x00\x00", "not CSV text", 0},
		"json":           {`{"jobs": []}` + "\n", "lacks required columns job_id, submit_ts, gpus", 0},
		"no duration":    {"job_id,submit_ts,gpus,start_ts\n", "duration_s (or start_ts and end_ts)", 0},
		"header only":    {"job_id,submit_ts,gpus,duration_s\n", "no job rows", 0},
		"open quote":     {"\"job_id,submit_ts\n", "unbalanced quotes", 0},
		"long header":    {strings.Repeat("x", MaxLine+10), "first line is longer", 0},
		"too many jobs":  {"job_id,submit_ts,gpus,duration_s\na,1,1,1\nb,1,1,1\nc,1,1,1\n", "more than 2 jobs", 2},
		"no usable rows": {"job_id,submit_ts,gpus,duration_s\na,1,0,1\n", "", 0},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			tr, err := Read(strings.NewReader(tc.in), ReadOptions{MaxJobs: tc.max})
			if tc.want == "" {
				if err != nil || len(tr.Jobs) != 0 || tr.Skipped[SkipNoGPUs] != 1 {
					t.Fatalf("Read = %+v, %v; want no jobs, one skipped", tr, err)
				}
				if _, err := Run(tr, Options{Fleet: FixedFleet(1, 8)}); err == nil || !strings.Contains(err.Error(), "no job") {
					t.Errorf("Run = %v, want an error saying no job can run", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Read = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestReadSkipsLongLinesInBoundedMemory(t *testing.T) {
	in := "job_id,submit_ts,gpus,duration_s\n" + strings.Repeat("y", 4*MaxLine) + "\nz,1,1,1\n" +
		strings.Repeat("w", 3*MaxLine) // the last line without a line end
	tr, err := Read(strings.NewReader(in), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Jobs) != 1 || tr.Jobs[0].ID != "z" || tr.Skipped[SkipLongLine] != 2 {
		t.Errorf("Read = %+v, want job z and two long lines skipped", tr)
	}
}

func TestRunSkipsJobsTheFleetCannotHold(t *testing.T) {
	in := "job_id,submit_ts,gpus,duration_s,spec\na,1,17,10,\nb,1,4,10,H100\nc,1,16,10,gpu\nd,2,3,10,\n"
	tr, err := Read(strings.NewReader(in), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, pol := range []string{PolicyKashi, PolicyFIFO} {
		res := run(t, tr, Options{Policy: pol, Fleet: FixedFleet(2, 8)})
		want := map[string]int{SkipLargerThanFleet: 1, SkipUnknownSpec: 1}
		if diff := cmp.Diff(want, res.Skipped); diff != "" || res.Jobs != 2 {
			t.Errorf("%s: %d jobs; skipped (-want +got):\n%s", pol, res.Jobs, diff)
		}
		rows := jobRows(t, res)
		// c takes both nodes whole; d waits for them.
		if rows[0].nodes != "1;2" || rows[1].start != 11 {
			t.Errorf("%s: jobs = %+v", pol, rows)
		}
	}
}

func TestRunRejectsBadOptions(t *testing.T) {
	tr := &Trace{Jobs: []Job{{ID: "a", GPUs: 1, Duration: 1}}}
	tests := map[string]struct {
		opt  Options
		want string
	}{
		"policy":    {Options{Policy: "lifo", Fleet: FixedFleet(1, 8)}, "unknown policy"},
		"estimates": {Options{Estimates: "guess", Fleet: FixedFleet(1, 8)}, "unknown estimates"},
		"no pools":  {Options{}, "no pools"},
		"gpus":      {Options{Fleet: FixedFleet(1, 0)}, "gpus_per_node"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if _, err := Run(tr, tc.opt); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Run = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestWaitStatsInterpolate(t *testing.T) {
	got := waitStats([]int64{40, 0, 10, 20, 30})
	want := WaitStats{Mean: 20, P50: 20, P95: 38, Max: 40}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("waitStats (-want +got):\n%s", diff)
	}
	if got := waitStats(nil); got != (WaitStats{}) {
		t.Errorf("waitStats(nil) = %+v", got)
	}
}
