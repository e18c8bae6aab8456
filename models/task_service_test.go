package models_test

import (
	"context"
	"errors"
	"testing"

	"kashi/models"
	"kashi/models/modelstest"
)

func newService(replicas int) models.NewTask {
	nt := newTask("qwen-chat", 1)
	nt.Kind = models.TaskKindService
	nt.Service = models.ServiceSpec{Model: "qwen2.5-7b", Replicas: replicas, MetricsPort: 8000}
	return nt
}

func TestCreateServiceStoresEachReplica(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n := registerNode(t, s, "n1", "a100", 4)
		if _, err := s.EnsureProject(ctx, "vision", t0); err != nil {
			t.Fatal(err)
		}
		nt := newService(3)
		nt.Service.HealthPath = "/health"
		nt.IdempotencyKey, nt.IdempotencyScope = "k1", "user:1"
		first, created, err := s.CreateTask(ctx, nt, models.DefaultTaskLimits, t0)
		if err != nil || !created {
			t.Fatalf("CreateTask(service) = %v, %v", created, err)
		}
		if first.ServiceID == nil || *first.ServiceID != first.ID || first.MaxRuntimeS != 0 || first.MetricsPath != "/metrics" {
			t.Errorf("first replica = service %v, max runtime %d, path %q; want its own id, none, /metrics",
				first.ServiceID, first.MaxRuntimeS, first.MetricsPath)
		}
		again, created, err := s.CreateTask(ctx, nt, models.DefaultTaskLimits, t0)
		if err != nil || created || again.ID != first.ID {
			t.Errorf("repeated submit = task %d created %v, %v; want the first, %d", again.ID, created, err, first.ID)
		}
		tasks, err := s.Tasks(ctx, models.TaskFilter{})
		if err != nil {
			t.Fatal(err)
		}
		var replicas []int64
		for _, tk := range tasks {
			if tk.ServiceID != nil && *tk.ServiceID == first.ID && tk.Model == "qwen2.5-7b" && tk.Service() {
				replicas = append(replicas, tk.ID)
			}
		}
		if len(replicas) != 3 {
			t.Fatalf("replicas of service %d = %v, want 3 tasks", first.ID, replicas)
		}
		nodes, _ := s.Nodes(ctx)
		if err := s.PlaceTask(ctx, replicas[1], []int64{nodes[0].GPUs[1].ID}, false, "placed", t0); err != nil {
			t.Fatal(err)
		}
		as, err := s.Assignments(ctx, n.ID)
		if err != nil || len(as) != 1 || as[0].MetricsPort != 8001 || as[0].MetricsPath != "/metrics" || as[0].HealthPath != "/health" || as[0].MaxRuntimeS != 0 || !as[0].Restart {
			t.Errorf("Assignments = %+v, %v; want the second replica on port 8001 at /metrics, probed at /health, no runtime limit, restarted when it exits", as, err)
		}
	})
}

func TestCreateServiceRefusesBadFields(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		registerNode(t, s, "n1", "a100", 1)
		if _, err := s.EnsureProject(ctx, "vision", t0); err != nil {
			t.Fatal(err)
		}
		cases := map[string]struct {
			change func(*models.NewTask)
			field  string
		}{
			"unknown kind":                 {func(nt *models.NewTask) { nt.Kind = "daemon" }, "kind"},
			"batch with a model":           {func(nt *models.NewTask) { nt.Kind = "" }, "kind"},
			"no model":                     {func(nt *models.NewTask) { nt.Service.Model = "" }, "model"},
			"too many replicas":            {func(nt *models.NewTask) { nt.Service.Replicas = 17 }, "replicas"},
			"no port":                      {func(nt *models.NewTask) { nt.Service.MetricsPort = 0 }, "metrics_port"},
			"port too high":                {func(nt *models.NewTask) { nt.Service.MetricsPort = 70000 }, "metrics_port"},
			"last replica's port too high": {func(nt *models.NewTask) { nt.Service.MetricsPort, nt.Service.Replicas = 65535, 2 }, "metrics_port"},
			"relative path":                {func(nt *models.NewTask) { nt.Service.MetricsPath = "metrics" }, "metrics_path"},
			"path with a space":            {func(nt *models.NewTask) { nt.Service.MetricsPath = "/a b" }, "metrics_path"},
			"relative health path":         {func(nt *models.NewTask) { nt.Service.HealthPath = "health" }, "health_path"},
			"health path with a fragment":  {func(nt *models.NewTask) { nt.Service.HealthPath = "/health#x" }, "health_path"},
			"short lane":                   {func(nt *models.NewTask) { nt.Queue = models.QueueShort }, "queue"},
			"runtime limit":                {func(nt *models.NewTask) { nt.MaxRuntime = 3600e9 }, "max_runtime_s"},
		}
		for name, tc := range cases {
			t.Run(name, func(t *testing.T) {
				nt := newService(1)
				tc.change(&nt)
				_, _, err := s.CreateTask(ctx, nt, models.DefaultTaskLimits, t0)
				var fe *models.FieldError
				if !errors.As(err, &fe) || fe.Field != tc.field {
					t.Errorf("CreateTask = %v, want a field error on %s", err, tc.field)
				}
			})
		}
	})
}
