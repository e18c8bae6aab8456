package models

import (
	"context"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"
)

// growing are the tables that grow with a deployment's history: a request an agent sends
// every few seconds must never scan one of them.
var growing = regexp.MustCompile(`\bSCAN (allocations|tasks|task_events|gpu_samples|notifications|alerts)\b`)

// statement is one statement a test saw run, with its arguments.
type statement struct {
	sql  string
	vars []any
}

// TestAgentPathsReadByKey runs each store call an agent's requests make in its steady state — the
// token, samples, assignments, the confirmation that tasks run, the reports of a task running
// and exiting — and asks SQLite for the plan of every statement they ran: none may scan a
// table that grows with history. A task's status report once found its task through every
// allocation ever made on any node (a scan whose cost grew with the deployment's age). Nor
// may they forget the scheduler's fleet (fleet_cache.go): the grouped writes' savepoints once
// did, at every group.
func TestAgentPathsReadByKey(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "kashi.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	t0 := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC)
	n, err := s.RegisterNode(ctx, NodeRegistration{Hostname: "n1", Pool: "a100", GPUs: []GPUInfo{
		{UUID: "n1-g0", Index: 0, Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920},
		{UUID: "n1-g1", Index: 1, Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920}}}, "hash-n1", t0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.EnsureProject(ctx, "vision", t0); err != nil {
		t.Fatal(err)
	}
	var tasks []int64
	for range 2 {
		tk, _, err := s.CreateTask(ctx, NewTask{Project: "vision", Name: "train", Owner: "alice", GPUs: 1,
			Queue: QueueLong, Priority: "normal", Command: []string{"x"}, DataReady: true}, DefaultTaskLimits, t0)
		if err != nil {
			t.Fatal(err)
		}
		tasks = append(tasks, tk.ID)
	}

	var (
		mu   sync.Mutex
		ran  []statement
		stop bool
	)
	capture := func(db *gorm.DB) {
		mu.Lock()
		defer mu.Unlock()
		if !stop && db.Error == nil {
			ran = append(ran, statement{db.Statement.SQL.String(), append([]any(nil), db.Statement.Vars...)})
		}
	}
	cb := s.db.Callback()
	for _, err := range []error{
		cb.Query().After("gorm:query").Register("test:capture", capture),
		cb.Row().After("gorm:row").Register("test:capture", capture),
		cb.Raw().After("gorm:raw").Register("test:capture", capture),
		cb.Update().After("gorm:update").Register("test:capture", capture),
		cb.Delete().After("gorm:delete").Register("test:capture", capture),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}

	if _, err := s.NodeByTokenHash(ctx, "hash-n1"); err != nil {
		t.Fatal(err)
	}
	nodes, err := s.Nodes(ctx)
	if err != nil || len(nodes) != 1 {
		t.Fatalf("Nodes = %v, %v", nodes, err)
	}
	for i, id := range tasks {
		if err := s.PlaceTask(ctx, id, []int64{nodes[0].GPUs[i].ID}, false, "placed", t0); err != nil {
			t.Fatal(err)
		}
	}
	at := t0.Add(time.Minute)
	if _, err := s.IngestSamples(ctx, n.ID, []Reading{{UUID: "n1-g0", TS: at, MemoryUsedMiB: 1000, UtilPct: 50}}, at); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Assignments(ctx, n.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.ConfirmRunning(ctx, n.ID, tasks[:1], at); err != nil {
		t.Fatal(err)
	}
	if err := s.ReportTaskStatus(ctx, n.ID, tasks[1], TaskReport{State: ReportRunning, TS: at}, at); err != nil {
		t.Fatal(err)
	}
	end := at.Add(time.Hour)
	for _, id := range tasks {
		if err := s.ReportTaskStatus(ctx, n.ID, id, TaskReport{State: ReportExited, TS: end}, end); err != nil {
			t.Fatal(err)
		}
	}

	mu.Lock()
	stop = true
	mu.Unlock()
	if _, kept, _ := s.fleet.get(); !kept {
		t.Error("the agents' steady writes (placements, samples, confirmations, reports) forgot the scheduler's fleet")
	}
	if len(ran) < 10 {
		t.Fatalf("captured %d statements, want the agent paths' dozens", len(ran))
	}
	for _, st := range ran {
		var plan []struct{ Detail string }
		if err := s.db.Raw("EXPLAIN QUERY PLAN "+st.sql, st.vars...).Scan(&plan).Error; err != nil {
			t.Fatalf("plan of %s: %v", st.sql, err)
		}
		for _, p := range plan {
			if growing.MatchString(p.Detail) {
				t.Errorf("%s\n  plan: %s", st.sql, p.Detail)
			}
		}
	}
}
