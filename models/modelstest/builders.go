package modelstest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"kashi/models"
)

// Builders for the fixtures every package's tests need: nodes with GPUs, tasks, and tasks
// running on a node. Each reads as a sentence:
//
//	n := modelstest.Node("n1").Pool("a100").A100s(8).Register(t, s, t0)
//	task := modelstest.Task("vision", "train").GPUs(2).Create(t, s, t0)
//	modelstest.Run(t, s, task, n, t0)

// A100 is the NVML name and memory of the GPUs the builders give by default.
const (
	A100Name = "NVIDIA A100-SXM4-80GB"
	A100MiB  = 81920
)

// NodeB builds a node registration.
type NodeB struct{ r models.NodeRegistration }

// Node starts a node named host in the pool "default", without GPUs.
func Node(host string) *NodeB {
	return &NodeB{r: models.NodeRegistration{Hostname: host, Pool: "default"}}
}

// Pool puts the node in pool p.
func (b *NodeB) Pool(p string) *NodeB { b.r.Pool = p; return b }

// A100s gives the node n A100-80G GPUs with UUIDs "<host>-g<i>".
func (b *NodeB) A100s(n int) *NodeB {
	return b.Cards(A100Name, A100MiB, n, func(i int) string { return fmt.Sprintf("%s-g%d", b.r.Hostname, i) })
}

// Cards gives the node n GPUs named name with mib of memory, UUIDs from uuid.
func (b *NodeB) Cards(name string, mib int64, n int, uuid func(i int) string) *NodeB {
	for i := range n {
		b.r.GPUs = append(b.r.GPUs, models.GPUInfo{UUID: uuid(i), Index: len(b.r.GPUs), Name: name, MemoryTotalMiB: mib})
	}
	return b
}

// Registration is the built registration.
func (b *NodeB) Registration() models.NodeRegistration { return b.r }

// Register stores the node at at and returns it with its GPUs.
func (b *NodeB) Register(t testing.TB, s *models.Store, at time.Time) models.NodeGPUs {
	t.Helper()
	ctx := context.Background()
	n, err := s.RegisterNode(ctx, b.r, "hash-"+b.r.Hostname, at)
	if err != nil {
		t.Fatalf("RegisterNode(%s): %v", b.r.Hostname, err)
	}
	nodes, err := s.Nodes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, ng := range nodes {
		if ng.ID == n.ID {
			return ng
		}
	}
	t.Fatalf("node %s not listed after registering", b.r.Hostname)
	return models.NodeGPUs{}
}

// TaskB builds a task submission.
type TaskB struct{ t models.NewTask }

// Task starts a ready one-GPU long-lane task of project owned by alice.
func Task(project, name string) *TaskB {
	return &TaskB{t: models.NewTask{Project: project, Name: name, Owner: "alice", GPUs: 1,
		Queue: models.QueueLong, Priority: models.PriorityNormal, Command: []string{"train"}, DataReady: true}}
}

// GPUs asks for n GPUs.
func (b *TaskB) GPUs(n int) *TaskB { b.t.GPUs = n; return b }

// Spec asks for GPUs of spec.
func (b *TaskB) Spec(spec string) *TaskB { b.t.Spec = spec; return b }

// Estimate declares the task's estimated card-hours and its max runtime.
func (b *TaskB) Estimate(gpuHours float64, maxRuntime time.Duration) *TaskB {
	b.t.EstGPUHours, b.t.MaxRuntime = gpuHours, maxRuntime
	return b
}

// Owner makes owner submit the task.
func (b *TaskB) Owner(owner string) *TaskB { b.t.Owner = owner; return b }

// Service makes the task an inference service of one replica serving model, with its
// metrics page on port and a p95 time-to-first-token target (0 for none).
func (b *TaskB) Service(model string, port, ttftTargetMS int) *TaskB {
	b.t.Kind = models.TaskKindService
	b.t.Service = models.ServiceSpec{Model: model, MetricsPort: port, TTFTTargetMS: ttftTargetMS}
	return b
}

// Attempts lets the task run at most n times (reruns from its last checkpoint included).
func (b *TaskB) Attempts(n int) *TaskB { b.t.MaxAttempts = n; return b }

// RerunOnFailure reruns the task also when it exits non-zero by itself.
func (b *TaskB) RerunOnFailure() *TaskB { b.t.RerunOnFailure = true; return b }

// New is the built submission.
func (b *TaskB) New() models.NewTask { return b.t }

// Create stores the task at at, creating its project when missing.
func (b *TaskB) Create(t testing.TB, s *models.Store, at time.Time) models.Task {
	t.Helper()
	ctx := context.Background()
	if _, err := s.EnsureProject(ctx, b.t.Project, at); err != nil {
		t.Fatal(err)
	}
	task, _, err := s.CreateTask(ctx, b.t, models.DefaultTaskLimits, at)
	if err != nil {
		t.Fatalf("CreateTask(%s): %v", b.t.Name, err)
	}
	return task
}

// Run places task on the first free GPUs of node and reports its process running, at at.
func Run(t testing.TB, s *models.Store, task models.Task, node models.NodeGPUs, at time.Time) {
	t.Helper()
	ctx := context.Background()
	open, err := s.OpenAllocations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	held := make(map[int64]bool)
	for _, a := range open {
		held[a.GPUID] = true
	}
	var ids []int64
	for _, g := range node.GPUs {
		if len(ids) < task.GPUs && !held[g.ID] {
			ids = append(ids, g.ID)
		}
	}
	if len(ids) < task.GPUs {
		t.Fatalf("node %s has %d free GPUs, task %d asks %d", node.Hostname, len(ids), task.ID, task.GPUs)
	}
	if err := s.PlaceTask(ctx, task.ID, ids, false, "placed", at); err != nil {
		t.Fatal(err)
	}
	if err := s.ReportTaskStatus(ctx, node.ID, task.ID, models.TaskReport{State: models.ReportRunning, TS: at}, at); err != nil {
		t.Fatal(err)
	}
}
