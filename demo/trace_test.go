package demo

import (
	"bytes"
	"encoding/csv"
	"flag"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite testdata/traces/demo-2wk.csv from the demo's task stream")

// demoTracePath is the demo's task stream as a replay trace (see testdata/traces/SOURCE.md).
const demoTracePath = "../testdata/traces/demo-2wk.csv"

// TestDemoTrace: testdata/traces/demo-2wk.csv is the demo's task stream over two weeks as
// the demo's past draws it (idle holders reclaimed), with what each task declared: its
// estimate, max runtime, lane and priority. `go test ./demo -run DemoTrace -update` writes
// it again after the stream changes.
func TestDemoTrace(t *testing.T) {
	from := time.Date(2026, 3, 2, 0, 0, 0, 0, shanghai)
	// The pools' default reclaim throughout: vision's change falls after the two weeks.
	tasks := pastStream(rand.New(rand.NewPCG(1, 0x74726163)), from, from.AddDate(0, 0, 14), newPastReclaim(from.AddDate(0, 0, 14)))
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write([]string{"job_id", "submit_ts", "gpus", "duration_s", "group", "spec", "est_s", "max_runtime_s", "queue", "priority"})
	for i, tk := range tasks {
		est := int64(tk.body.EstGPUHours / float64(tk.body.GPUs) * 3600)
		w.Write([]string{strconv.Itoa(i + 1), strconv.FormatInt(tk.submit.Sub(from).Milliseconds()/1000, 10),
			strconv.Itoa(tk.body.GPUs), strconv.FormatInt(int64(tk.held/time.Second), 10), tk.body.Project, tk.body.Spec,
			strconv.FormatInt(est, 10), strconv.FormatInt(tk.body.MaxRuntimeS, 10), tk.body.Queue, tk.body.Priority})
	}
	w.Flush()
	if *update {
		if err := os.WriteFile(demoTracePath, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(demoTracePath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, b.Bytes()) {
		t.Errorf("%s is not the demo's task stream; rewrite it with -update", demoTracePath)
	}
}
