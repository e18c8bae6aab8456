package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const openbTrace = "testdata/traces/alibaba-openb-2wk.csv"

func TestReplayCommand(t *testing.T) {
	dir := t.TempDir()
	out, jobs := filepath.Join(dir, "r.json"), filepath.Join(dir, "jobs.csv")
	args := []string{"replay", "--trace", openbTrace, "--nodes", "64", "--policy", "fifo", "--rate-fen", "1000",
		"--out", out, "--jobs-out", jobs}
	if err := run(context.Background(), args, func(string) string { return "" }, io.Discard, io.Discard); err != nil {
		t.Fatalf("run(%q) = %v", args, err)
	}
	body, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Jobs          int               `json:"jobs"`
		TotalGPUHours json.RawMessage   `json:"total_gpu_hours"`
		Wait          struct{ Max int } `json:"wait_s"`
		Cost          struct {
			TotalFen int64 `json:"total_fen"`
		} `json:"cost"`
	}
	if err := json.Unmarshal(body, &res); err != nil {
		t.Fatal(err)
	}
	if res.Jobs != 2491 || string(res.TotalGPUHours) != "8085.460556" || res.Wait.Max != 0 || res.Cost.TotalFen == 0 {
		t.Errorf("result = %+v", res)
	}
	lines, err := os.ReadFile(jobs)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(lines, []byte("\n")); n != 2492 {
		t.Errorf("jobs file has %d lines, want 2492", n)
	}
}

// TestReplayPrintsTheEstimatesScore: one replay prints its row of the sweep's table, the
// score of the queue's estimates of start among its columns, as its result JSON has them.
func TestReplayPrintsTheEstimatesScore(t *testing.T) {
	var stdout strings.Builder
	out := filepath.Join(t.TempDir(), "r.json")
	args := []string{"replay", "--trace", openbTrace, "--nodes", "3", "--out", out}
	if err := run(context.Background(), args, func(string) string { return "" }, &stdout, io.Discard); err != nil {
		t.Fatalf("run(%q) = %v", args, err)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "p50_within_25pct") || !strings.Contains(lines[0], "by_p90") ||
		!strings.Contains(lines[1], "policy=kashi estimates=exact") {
		t.Fatalf("output:\n%s", stdout.String())
	}
	body, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		ETA struct {
			Tasks     int     `json:"tasks"`
			P50Within float64 `json:"p50_within_25pct"`
			ByP90     float64 `json:"started_by_p90"`
		} `json:"eta"`
	}
	if err := json.Unmarshal(body, &res); err != nil {
		t.Fatal(err)
	}
	within := fmt.Sprintf(" %.0f%% ", 100*res.ETA.P50Within)
	if res.ETA.Tasks == 0 || !strings.Contains(lines[1], fmt.Sprintf(" %d ", res.ETA.Tasks)) || !strings.Contains(lines[1], within) {
		t.Errorf("printed %q, want the result's score %+v", lines[1], res.ETA)
	}
}

func TestReplaySweepPrintsATable(t *testing.T) {
	var stdout strings.Builder
	args := []string{"replay", "--trace", openbTrace, "--nodes", "4", "--sweep", "policy=kashi,fifo"}
	if err := run(context.Background(), args, func(string) string { return "" }, &stdout, io.Discard); err != nil {
		t.Fatalf("run(%q) = %v", args, err)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], "mean_wait_s") || !strings.Contains(lines[1], "policy=kashi") ||
		!strings.Contains(lines[2], "policy=fifo") {
		t.Errorf("table:\n%s", stdout.String())
	}
}

func TestReplayRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	notCSV := filepath.Join(dir, "x.bin")
	if err := os.WriteFile(notCSV, []byte{0x7f, 'E', 'L', 'F', 0, 0, 1}, 0o644); err != nil {
		t.Fatal(err)
	}
	dup := filepath.Join(dir, "dup.csv")
	if err := os.WriteFile(dup, []byte("job_id,submit_ts,gpus,duration_s\na,0,1,60\nb,1,1,60\na,2,1,60\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "r.json")
	tests := map[string]struct {
		args []string
		env  map[string]string
		want string
	}{
		"no trace":     {[]string{"--nodes", "4", "--out", out}, nil, "--trace is required"},
		"no out":       {[]string{"--trace", openbTrace, "--nodes", "4"}, nil, "--out is required"},
		"no fleet":     {[]string{"--trace", openbTrace, "--out", out}, nil, "give the fleet"},
		"both fleets":  {[]string{"--trace", openbTrace, "--out", out, "--nodes", "2", "--config", "x.yaml"}, nil, "exclude"},
		"missing file": {[]string{"--trace", filepath.Join(dir, "none.csv"), "--nodes", "2", "--out", out}, nil, "no such file"},
		"not csv":      {[]string{"--trace", notCSV, "--nodes", "2", "--out", out}, nil, "not CSV"},
		"repeated id":  {[]string{"--trace", dup, "--nodes", "2", "--out", out}, nil, `dup.csv: replay: line 4 repeats job_id "a" of line 2`},
		"bad policy":   {[]string{"--trace", openbTrace, "--nodes", "2", "--out", out, "--policy", "lifo"}, nil, "unknown policy"},
		"bad sweep":    {[]string{"--trace", openbTrace, "--nodes", "2", "--sweep", "colour=red"}, nil, "unknown setting"},
		"env int":      {[]string{"--trace", openbTrace, "--out", out}, map[string]string{"KASHI_NODES": "many"}, "KASHI_NODES"},
		"sweep+jobs":   {[]string{"--trace", openbTrace, "--nodes", "2", "--sweep", "nodes=1,2", "--jobs-out", out}, nil, "--jobs-out"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := run(context.Background(), append([]string{"replay"}, tc.args...), func(k string) string { return tc.env[k] },
				io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("run(replay %q) = %v, want an error containing %q", tc.args, err, tc.want)
			}
		})
	}
}
