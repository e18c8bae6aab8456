package models

import (
	"cmp"
	"strings"
	"unicode"

	"gorm.io/gorm"
)

// Service limits of a submit.
const (
	// MaxReplicas is the most replicas one service may ask for.
	MaxReplicas = 16
	// MaxTTFTTargetMS is the largest time-to-first-token target, ten minutes.
	MaxTTFTTargetMS = 600_000
	// DefaultMetricsPath is where a model server serves its Prometheus page unless told.
	DefaultMetricsPath = "/metrics"
)

// ServiceSpec is what a submit of kind service adds: the model it serves, how many replicas
// (each a task of the submit's GPUs, placed on its own), and where each replica's model
// server serves its metrics page on the node's loopback.
type ServiceSpec struct {
	Model       string
	Replicas    int
	MetricsPort int
	MetricsPath string
	// HealthPath, when set, is where each replica's server answers whether it is healthy, on
	// its metrics port: its node restarts a replica that stops answering 2xx (see the agent's
	// health probe). Empty for no probe; left out of the request hash when empty, so that a
	// key stored before health paths existed still matches its repeat.
	HealthPath string `json:",omitempty"`
	// TTFTTargetMS is the p95 time to first token the service should keep under, in ms; 0
	// for none.
	TTFTTargetMS int
}

// checkKind validates the task kind and, for a service, its spec (zero replicas and an empty
// path take the defaults: one replica, /metrics; an empty health path probes nothing). A
// service runs until it is stopped: it takes the long lane and no runtime limit.
func checkKind(nt NewTask) error {
	switch nt.Kind {
	case "", TaskKindBatch:
		if nt.Service != (ServiceSpec{}) {
			return fieldErr("kind", "model, replicas and metrics are for kind %q", TaskKindService)
		}
		return nil
	case TaskKindService:
	default:
		return fieldErr("kind", "must be %q or %q, got %q", TaskKindBatch, TaskKindService, truncate(nt.Kind, 20))
	}
	sv := nt.Service
	if err := checkName("model", sv.Model, 200); err != nil {
		return err
	}
	if strings.ContainsFunc(sv.Model, unicode.IsControl) {
		return fieldErr("model", "must not contain control characters")
	}
	if sv.Replicas < 0 || sv.Replicas > MaxReplicas {
		return fieldErr("replicas", "must be between 1 and %d, got %d", MaxReplicas, sv.Replicas)
	}
	if last := sv.MetricsPort + max(1, sv.Replicas) - 1; sv.MetricsPort < 1 || last > 65535 {
		return fieldErr("metrics_port", "must be a port between 1 and 65535 for each replica (replica i serves on metrics_port + i), got %d", sv.MetricsPort)
	}
	if sv.MetricsPath != "" && !urlPath(sv.MetricsPath) {
		return fieldErr("metrics_path", "must be a URL path such as /metrics")
	}
	if sv.HealthPath != "" && !urlPath(sv.HealthPath) {
		return fieldErr("health_path", "must be a URL path such as /health")
	}
	if sv.TTFTTargetMS < 0 || sv.TTFTTargetMS > MaxTTFTTargetMS {
		return fieldErr("ttft_target_ms", "must be between 0 and %d, got %d", MaxTTFTTargetMS, sv.TTFTTargetMS)
	}
	if nt.Queue != QueueLong {
		return fieldErr("queue", "a service runs until it is stopped: it takes the %q queue", QueueLong)
	}
	if nt.MaxRuntime != 0 {
		return fieldErr("max_runtime_s", "a service runs until it is stopped: leave it out")
	}
	return nil
}

// urlPath reports whether p is a URL path of at most 200 printable ASCII characters that
// starts with a slash and has no fragment.
func urlPath(p string) bool {
	return len(p) <= 200 && strings.HasPrefix(p, "/") &&
		!strings.ContainsFunc(p, func(r rune) bool { return r <= ' ' || r == '#' || r > '~' })
}

// withService sets a service's fields on t, the task of its first replica, with the
// defaults.
func withService(t *Task, nt NewTask) {
	if nt.Kind != TaskKindService {
		return
	}
	t.Kind, t.Model, t.Replicas = TaskKindService, nt.Service.Model, max(1, nt.Service.Replicas)
	t.MetricsPort, t.MetricsPath = nt.Service.MetricsPort, cmp.Or(nt.Service.MetricsPath, DefaultMetricsPath)
	t.HealthPath, t.TTFTTargetMS = nt.Service.HealthPath, nt.Service.TTFTTargetMS
	t.MaxRuntimeS = 0
}

// createReplicas makes the first replica's task the service (ServiceID is its own id) and
// stores the other replicas as tasks like it, each placed on its own. Replica i serves on
// MetricsPort + i (told to it as KASHI_METRICS_PORT), so replicas sharing a node never
// collide. Only the first carries the idempotency key: a repeated submit finds it.
func createReplicas(tx *gorm.DB, first *Task) error {
	if !first.Service() {
		return nil
	}
	first.ServiceID = &first.ID
	if err := tx.Model(first).Update("service_id", first.ID).Error; err != nil {
		return err
	}
	for i := 1; i < first.Replicas; i++ {
		r := *first
		r.ID, r.IdempotencyKey, r.IdempotencyScope, r.IdempotencyHash = 0, nil, "", ""
		r.MetricsPort += i
		if err := tx.Create(&r).Error; err != nil {
			return err
		}
		if err := tx.Create(&TaskEvent{TaskID: r.ID, At: r.SubmittedAt, To: r.State, Reason: "submitted by " + r.Owner}).Error; err != nil {
			return err
		}
	}
	return nil
}
