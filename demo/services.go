package demo

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"kashi/agent/simgpu"
)

// demoService is an inference service the demo runs beside its task stream: a simulated
// model server per replica (simgpu.ServiceCommand) whose metrics page the agents scrape.
type demoService struct {
	project, owner, name, model, spec string
	gpus, replicas                    int
	rps                               float64
	ttft                              time.Duration
}

// services are the demo's: a small chat model on two 4090 replicas with a quick first token,
// and a larger vision model on two A100s, slower and busier per card.
var services = []demoService{
	{project: "nlp", owner: "bob", name: "chat", model: "qwen2.5-7b-instruct", spec: "RTX4090-24G", gpus: 1, replicas: 2, rps: 4, ttft: 120 * time.Millisecond},
	{project: "vision", owner: "alice", name: "caption", model: "llava-1.6-34b", spec: "A100-80G", gpus: 2, replicas: 1, rps: 1, ttft: 450 * time.Millisecond},
}

// serviceRun is how long a demo service runs in virtual time: longer than any demo session.
const serviceRun = 365 * 24 * time.Hour

// submitServices submits the demo's services through the tasks API, as a script would.
func submitServices(ctx context.Context, cfg Config, client *http.Client) {
	for _, sv := range services {
		port, err := freePorts(sv.replicas)
		if err != nil {
			cfg.Logger.Warn("demo service port", "service", sv.name, "err", err)
			continue
		}
		b := taskBody{Project: sv.project, Name: sv.name, Owner: sv.owner, GPUs: sv.gpus, Spec: sv.spec, Queue: "long",
			Priority: "high", EstGPUHours: float64(sv.gpus*sv.replicas) * 24, DataReady: true,
			Command: simgpu.ServiceCommand(serviceRun, sv.rps, sv.ttft),
			Kind:    "service", Model: sv.model, Replicas: sv.replicas, MetricsPort: port, HealthPath: "/health"}
		if err := postJSON(ctx, client, cfg.Server+"/api/v1/tasks", cfg.Tokens[sv.owner], "demo-service-"+sv.name+fmt.Sprint(port), b, nil); err != nil && ctx.Err() == nil {
			cfg.Logger.Warn("demo submit service", "service", sv.name, "err", err)
		}
	}
}

// freePorts finds n consecutive loopback ports nothing listens on now, for a service's
// replicas (replica i serves on the first + i).
func freePorts(n int) (int, error) {
	for range 20 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		first := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		if first+n-1 <= 65535 && portsFree(first+1, n-1) {
			return first, nil
		}
	}
	return 0, fmt.Errorf("no %d consecutive free ports", n)
}

func portsFree(from, n int) bool {
	for p := from; p < from+n; p++ {
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err != nil {
			return false
		}
		ln.Close()
	}
	return true
}
