package cli

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/api"
)

func TestParseStates(t *testing.T) {
	tests := map[string]struct {
		in   string
		want []string
		bad  bool
	}{
		"kashi":       {in: "queued,running", want: []string{"queued", "running"}},
		"slurm codes": {in: "PD,R", want: []string{"waiting-data", "queued", "running"}},
		"slurm names": {in: "completed,TIMEOUT", want: []string{"succeeded", "timed-out"}},
		"mixed":       {in: "CA,failed", want: []string{"cancelled", "failed"}},
		"bogus":       {in: "bogus", bad: true},
		"one bogus":   {in: "R,bogus", bad: true},
	}
	for name, tc := range tests {
		got, err := parseStates(tc.in)
		if tc.bad != (err != nil) || !cmp.Equal(tc.want, got) {
			t.Errorf("%s: parseStates(%q) = %v, %v; want %v (error %v)", name, tc.in, got, err, tc.want, tc.bad)
		}
	}
}

func TestFormat(t *testing.T) {
	now := time.Date(2026, 3, 2, 12, 0, 0, 0, time.UTC)
	started := now.Add(-(26*time.Hour + 3*time.Minute + 4*time.Second))
	ts := []api.Task{
		{ID: 7, Name: "train", Owner: "alice", Project: "vision", State: api.StateRunning, StartedAt: &started,
			Nodes: []string{"n1", "n2"}, GPUs: 8, Spec: "A100-80G", MaxRuntimeS: 7200},
		{ID: 8, Name: "eval", Owner: "bob", Project: "nlp", State: api.StateQueued, Reason: "quota"},
	}
	cells, err := parseFormat("%.4i %6j|%u %.2t %.12M %D %R %b %l")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	writeFormat(&out, cells, ts, now, false)
	want := `JOBI NAME  |USER ST         TIME NODES NODELIST(REASON) GRES TIME_LIMIT
   7 train |alice  R   1-02:03:04 2 n1,n2 gpu:A100-80G:8 2:00:00
   8 eval  |bob PD         0:00 0 (quota) gpu:0 UNLIMITED
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("writeFormat mismatch (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"%i %Z", "%.8"} {
		if _, err := parseFormat(bad); err == nil {
			t.Errorf("parseFormat(%q) succeeded, want an error", bad)
		}
	}
}
