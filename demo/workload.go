package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"time"

	"kashi/agent/simgpu"
)

// Projects are the demo's projects.
var Projects = []string{"vision", "nlp", "speech", "recsys"}

// owners submit the demo's task stream, each with an API token of their own (see Seed).
var owners = []string{"alice", "bob", "chen.wei", "li.na", "wang.fang", "zhao.lei"}

// arrivalsPerHour is the task arrival rate by hour of the simulated day: a quiet night, a
// morning ramp, a busy working day and an evening tail — a peak and a trough for the board,
// the queue and the scaling loop.
var arrivalsPerHour = [24]float64{2, 1.5, 1, 1, 1, 1.5, 3, 6, 10, 14, 16, 16, 12, 15, 16, 16, 15, 12, 9, 7, 5, 4, 3, 2}

// initialBurst is how many tasks the demo submits at once so the board fills within seconds.
const initialBurst = 18

// taskBody is the JSON the demo posts to /api/v1/tasks, as any script would.
type taskBody struct {
	Project     string   `json:"project"`
	Name        string   `json:"name"`
	Owner       string   `json:"owner"`
	GPUs        int      `json:"gpus"`
	Spec        string   `json:"spec,omitempty"`
	Queue       string   `json:"queue"`
	Priority    string   `json:"priority"`
	EstGPUHours float64  `json:"est_gpu_hours"`
	MaxRuntimeS int64    `json:"max_runtime_s"`
	Command     []string `json:"command"`
	DataReady   bool     `json:"data_ready"`
	Deferrable  bool     `json:"deferrable"`
	// A service's fields (see services.go); empty for a batch task.
	Kind        string `json:"kind,omitempty"`
	Model       string `json:"model,omitempty"`
	Replicas    int    `json:"replicas,omitempty"`
	MetricsPort int    `json:"metrics_port,omitempty"`
	HealthPath  string `json:"health_path,omitempty"`
	// MaxAttempts is how many times the task may run (reruns from its checkpoint); 0 for
	// the server's default.
	MaxAttempts int `json:"max_attempts,omitempty"`
}

// pendingReady is a task whose data becomes ready at a later clock time.
type pendingReady struct {
	id    int64
	token string
	at    time.Time
}

// submitTasks posts tasks following the day's arrival rate until ctx ends, and marks tasks
// whose data was not ready as ready once their data "arrives".
func submitTasks(ctx context.Context, cfg Config) {
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x6b617368))
	client := &http.Client{Timeout: 10 * time.Second}
	var waiting []pendingReady
	post := func(b taskBody) {
		var out struct {
			ID int64 `json:"id"`
		}
		token := cfg.Tokens[b.Owner]
		if err := postJSON(ctx, client, cfg.Server+"/api/v1/tasks", token, fmt.Sprintf("demo-%d", rng.Uint64()), b, &out); err != nil {
			if ctx.Err() == nil {
				cfg.Logger.Warn("demo submit", "err", err)
			}
			return
		}
		if !b.DataReady {
			waiting = append(waiting, pendingReady{out.ID, token, cfg.Now().Add(time.Duration(10+rng.IntN(40)) * time.Minute)})
		}
	}
	// Wait until the agents have registered, so that specs and capacity are known.
	if !sleep(ctx, 3*time.Second) {
		return
	}
	submitServices(ctx, cfg, client)
	for i := 0; i < initialBurst; i++ {
		b := randomTask(rng).body
		b.DataReady = true
		post(b)
	}
	last := cfg.Now()
	for sleep(ctx, time.Second) {
		now := cfg.Now()
		lambda := arrivalsPerHour[now.In(shanghai).Hour()] * now.Sub(last).Hours()
		last = now
		for n := poisson(rng, lambda); n > 0; n-- {
			post(randomTask(rng).body)
		}
		kept := waiting[:0]
		for _, w := range waiting {
			if now.Before(w.at) {
				kept = append(kept, w)
				continue
			}
			if err := postJSON(ctx, client, fmt.Sprintf("%s/api/v1/tasks/%d/ready", cfg.Server, w.id), w.token, "", nil, nil); err != nil && ctx.Err() == nil {
				cfg.Logger.Warn("demo mark ready", "task", w.id, "err", err)
			}
		}
		waiting = kept
	}
}

// shanghai is the demo's local time zone for the shape of its day.
var shanghai = func() *time.Location {
	if loc, err := time.LoadLocation("Asia/Shanghai"); err == nil {
		return loc
	}
	return time.FixedZone("CST", 8*3600)
}()

// drawn is a task of the demo's mix: what is submitted, and how it will run.
type drawn struct {
	body  taskBody
	shape simgpu.Shape
	run   time.Duration
	exit  int
}

// randomTask draws one task of the demo's mix, submitted by one of the owners to one of
// their projects.
func randomTask(rng *rand.Rand) drawn {
	kinds := []struct {
		weight   int
		shape    simgpu.Shape
		queue    string
		spec     string
		gpus     []int
		min, max time.Duration
	}{
		{30, simgpu.Train, "long", "A100-80G", []int{2, 4, 8}, time.Hour, 6 * time.Hour},
		{20, simgpu.Finetune, "long", "RTX4090-24G", []int{1, 2, 4}, 30 * time.Minute, 3 * time.Hour},
		{25, simgpu.Eval, "short", "", []int{1, 1, 2}, 5 * time.Minute, time.Hour},
		{12, simgpu.IdleHolder, "long", "RTX4090-24G", []int{1, 2}, 2 * time.Hour, 5 * time.Hour},
		{8, simgpu.MemHeavy, "long", "A100-80G", []int{4, 8}, 2 * time.Hour, 5 * time.Hour},
		{5, simgpu.Train, "long", "A100-80G", []int{16}, 2 * time.Hour, 4 * time.Hour},
	}
	total := 0
	for _, k := range kinds {
		total += k.weight
	}
	pick := rng.IntN(total)
	k := kinds[0]
	for _, c := range kinds {
		if pick < c.weight {
			k = c
			break
		}
		pick -= c.weight
	}
	gpus := k.gpus[rng.IntN(len(k.gpus))]
	d := k.min + time.Duration(rng.Int64N(int64(k.max-k.min)))
	d = d.Round(time.Minute)
	exit := 0
	if rng.IntN(20) == 0 {
		exit = 1
	}
	maxRuntime := min(2*d, 14*24*time.Hour)
	if k.queue == "short" {
		maxRuntime = min(maxRuntime, 2*time.Hour)
	}
	priority := []string{"normal", "normal", "normal", "high", "low", "urgent"}[rng.IntN(6)]
	owner := streamOwners[rng.IntN(len(streamOwners))]
	mine := ownerProjects(owner)
	return drawn{body: taskBody{
		Project: mine[rng.IntN(len(mine))], Name: fmt.Sprintf("%s-%04d", k.shape, rng.IntN(10000)),
		Owner: owner, GPUs: gpus, Spec: k.spec, Queue: k.queue, Priority: priority,
		EstGPUHours: math.Round(float64(gpus)*d.Hours()*(0.8+0.5*rng.Float64())*10) / 10,
		MaxRuntimeS: int64(maxRuntime / time.Second), Command: simgpu.Command(k.shape, d, exit),
		DataReady: rng.IntN(7) != 0, Deferrable: k.shape == simgpu.Train && rng.IntN(4) == 0,
	}, shape: k.shape, run: d, exit: exit}
}

// poisson draws a Poisson-distributed count with mean lambda (Knuth; lambda is small here).
func poisson(rng *rand.Rand, lambda float64) int {
	l, k, p := math.Exp(-lambda), 0, 1.0
	for {
		p *= rng.Float64()
		if p <= l {
			return k
		}
		k++
	}
}

// postJSON posts body (nil for none) with the bearer token and decodes a 2xx answer into out
// (nil to discard).
func postJSON(ctx context.Context, client *http.Client, url, token, idemKey string, body, out any) error {
	var rd io.Reader = http.NoBody
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	if idemKey != "" {
		req.Header.Set("Idempotency-Key", idemKey)
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("%s: %s: %s", url, resp.Status, bytes.TrimSpace(msg))
	}
	if out == nil {
		return nil
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// sleep waits d or until ctx ends; it reports whether ctx is still live.
func sleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}
