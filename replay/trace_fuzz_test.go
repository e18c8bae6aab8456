package replay

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// FuzzRead: any input is refused with an error or read into jobs that the replay can run
// (an id of its own, at least one GPU, a duration not below zero, in (submit, row) order), every other
// non-blank data line counted as skipped under a known cause. A small trace with pipelines
// replays without error beyond "no job can run", and every child starts after its parents
// ended.
func FuzzRead(f *testing.F) {
	for _, s := range []string{
		"job_id,submit_ts,gpus,duration_s\na,0,1,60\nb,5,8,0\n",
		"job_id,submit_ts,gpus,start_ts,end_ts,group,spec\na,2026-03-01T00:00:00Z,2,2026-03-01T00:00:00Z,2026-03-01T01:00:00Z,g,A100-80G\n",
		"\xef\xbb\xbfJOB_ID, Submit_TS ,gpus,duration_s\n\"a,b\",1,1,1\n\"x\"y,1,1,1\n\"open,1,1,1\n",
		"job_id,submit_ts,gpus,duration_s\nx,3,4,-1\ny,3,0,3600\nz,,1,1\nw,1,1e3,1\nv,9223372036854775807,1,9223372036854775807\n",
		"job_id,submit_ts,gpus,start_ts,end_ts\na,1,1,10,5\nb,1,1,,\n",
		"job_id,submit_ts,gpus,duration_s\na,0,1,60\n a ,1.5,2,0.5\n",
		"job_id,submit_ts,gpus,duration_s,stage,parent,status\na,0,1,60,clean,,failed\nb,0,1,60,train,a,\nc,5,2,9,eval, b ;a,Succeeded\nd,1,1,1,,d,\ne,1,1,1,,;,\n",
		"job_id,submit_ts,gpus,duration_s,parent\nx,0,1,5,y\ny,0,1,5,x\nz,0,1,5,q\n",
		"job_id,gpus\n", "job_id,submit_ts,gpus,duration_s\n\n\n", "\x00\x01", "", "\n\n",
	} {
		f.Add([]byte(s))
	}
	known := []string{SkipNoGPUs, SkipNegativeDuration, SkipUnparsable, SkipBadCSV, SkipLongLine}
	f.Fuzz(func(t *testing.T, in []byte) {
		tr, err := Read(bytes.NewReader(in), ReadOptions{MaxJobs: 1000})
		if err != nil {
			return
		}
		skipped := 0
		for cause, n := range tr.Skipped {
			if !slices.Contains(known, cause) || n < 1 {
				t.Fatalf("Read skipped %d rows as %q", n, cause)
			}
			skipped += n
		}
		if rows := len(tr.Jobs) + skipped; rows < 1 || rows > bytes.Count(in, []byte("\n"))+1 {
			t.Fatalf("Read = %d jobs and %d skipped rows from %d lines", len(tr.Jobs), skipped, bytes.Count(in, []byte("\n"))+1)
		}
		ids := map[string]bool{}
		for i, j := range tr.Jobs {
			if j.ID == "" || j.GPUs < 1 || j.Duration < 0 || j.Row < 1 || ids[j.ID] {
				t.Fatalf("Read kept job %+v", j)
			}
			ids[j.ID] = true
			if j.parent() != "" && slices.Contains(strings.Split(j.parent(), ";"), "") {
				t.Fatalf("Read kept job %+v with an empty parent id", j)
			}
			if i > 0 {
				p := tr.Jobs[i-1]
				if p.Submit > j.Submit || p.Submit == j.Submit && p.Row > j.Row {
					t.Fatalf("Read ordered %+v before %+v", p, j)
				}
			}
		}
		if len(tr.Jobs) <= 50 && slices.ContainsFunc(tr.Jobs, func(j Job) bool { return j.parent() != "" }) {
			checkPipelineRun(t, tr)
		}
	})
}

// checkPipelineRun replays tr strict FIFO on one 8-card node and checks that no replayed
// job starts before each of its parents ended.
func checkPipelineRun(t *testing.T, tr *Trace) {
	res, err := Run(tr, Options{Policy: PolicyFIFO, Fleet: FixedFleet(1, 8)})
	if err != nil {
		if strings.Contains(err.Error(), "no job of the trace can run") {
			return
		}
		t.Fatalf("Run = %v", err)
	}
	end := map[string]int64{}
	for _, p := range res.Placements() {
		if p.Started {
			end[p.JobID] = p.End
		}
	}
	for i, p := range res.Placements() {
		if !p.Started || res.jobs[i].parent() == "" {
			continue
		}
		for _, id := range strings.Split(res.jobs[i].parent(), ";") {
			e, ok := end[id]
			if !ok || p.Start < e {
				t.Fatalf("job %s starts at %d; its parent %s ended at %d (replayed: %v)", p.JobID, p.Start, id, e, ok)
			}
		}
	}
}
