package kube_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"kashi/api"
	"kashi/billing"
	"kashi/kube/kubetest"
	"kashi/models"
	"kashi/models/modelstest"
	"kashi/scheduler"
	"kashi/web/webtest"
)

// traceJob is one job of the comparison's trace: submitted at step Submit, it runs Steps
// steps of traceStep once placed.
type traceJob struct {
	Project       string
	GPUs          int
	Submit, Steps int
}

// traceStep is the comparison's clock step.
const traceStep = 30 * time.Minute

// compareTrace is a deterministic trace of n jobs of 1, 2, 4 or 8 cards from three projects,
// submitted over the first half of steps steps and lasting 1 to 6 steps: more than 64 nodes of
// 8 cards hold at once, so tasks wait for each other and for vision's quota.
func compareTrace(n, steps int) []traceJob {
	r := rand.New(rand.NewPCG(39, 64))
	projects := []string{"vision", "nlp", "speech"}
	out := make([]traceJob, n)
	for i := range out {
		out[i] = traceJob{Project: projects[r.IntN(3)], GPUs: []int{1, 2, 4, 8, 8}[r.IntN(5)],
			Submit: r.IntN(steps / 2), Steps: 1 + r.IntN(6)}
	}
	return out
}

// traceBackend is what runs the placed tasks of a comparison: a Kubernetes pool's pods, or
// agents through the agent API.
type traceBackend interface {
	// start makes the tasks just placed run; end ends the running tasks with exit code 0 at
	// the server's clock. Both return once the tasks are in their new state.
	start(ids []int64)
	end(ids []int64)
}

// TestKubernetesTraceMatchesAgents runs one trace on a Kubernetes pool of 64 kwok nodes and
// on 64 agent-run nodes (through the agent API), each on its own store, on SQLite and on
// Postgres, with the real scheduler: every task starts and ends at the same step on both;
// vision's quota (64 cards at once, a card-hour budget) is used alike; and the month's bills,
// issued, are equal project by project (card-hours, money) and task by task.
func TestKubernetesTraceMatchesAgents(t *testing.T) {
	cluster := kubetest.Start(t)
	jobs, steps := compareTrace(120, 16), 24
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, kubeStore *models.Store) {
		db := dbOf(t)
		agentStore := modelstest.SQLite(t, models.Options{})
		if db == "postgres" {
			agentStore = modelstest.Postgres(t, models.Options{})
		}
		w := newWorld(t, cluster, kubeStore, db)
		for i := 8; i < 64; i++ {
			cluster.AddGPUNode(t, fmt.Sprintf("%s-gpu-%d", db, i), 8, map[string]string{"kashi.test/pool": db,
				"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "nvidia.com/gpu.memory": "81920"})
		}
		w.untilReadyNodes(kubeStore, 64)
		k := &kubeRun{w: w}
		a := newAgentRun(t, agentStore)
		var runs [2]traceRun
		for i, b := range []struct {
			s       *webtest.Server
			backend traceBackend
		}{{w.s, k}, {a.s, a}} {
			runs[i] = runTrace(t, b.s, b.backend, jobs, steps)
		}
		if diff := cmp.Diff(runs[1], runs[0]); diff != "" {
			t.Errorf("the trace on Kubernetes against agents (-agents +kubernetes):\n%s", diff)
		}
		t.Logf("%d tasks, %d placed after their submit step, vision's quota used %.1f card-hours, bills %v", len(jobs), runs[0].Waited,
			runs[0].UsedCardHours["vision"], runs[0].Bills)
		if r := runs[0]; r.Waited == 0 || r.UsedCardHours["vision"] == 0 || len(r.Bills) != 3 || r.Bills["vision"].TotalFen == 0 {
			t.Errorf("the trace made no queue or no bill: %d tasks waited, vision used %v card-hours, bills %v", r.Waited, r.UsedCardHours["vision"], r.Bills)
		}
	})
}

// traceRun is what a comparison compares: each task's start and end steps, each project's
// quota use, and the issued bills.
type traceRun struct {
	Started, Ended map[int64]int
	// Waited counts the tasks placed after the step they were submitted at.
	Waited        int
	UsedCardHours map[string]float64
	Bills         map[string]billLine
	Lines         map[int64]billLine
}

// billLine is a bill's or a line's card-seconds and money.
type billLine struct {
	NominalS int64
	TotalFen int64
}

// runTrace runs the jobs on the server, stepping its clock by traceStep and ticking a
// scheduler of its store at each step, then issues the month's bills.
func runTrace(t *testing.T, s *webtest.Server, b traceBackend, jobs []traceJob, steps int) traceRun {
	ctx := context.Background()
	s.Projects("vision", "nlp", "speech")
	start := s.Clock()
	vision, err := s.Store.ProjectByName(ctx, "vision")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Store.SetQuota(ctx, "admin", models.Quota{ProjectID: vision.ID, Spec: "A100-80G", MaxGPUs: 64, BudgetCardHours: 2000,
		StartsAt: start.AddDate(0, -1, 0), EndsAt: start.AddDate(1, 0, 0)}, start); err != nil {
		t.Fatal(err)
	}
	if resp := s.Post("/api/v1/prices", `{"spec":"A100-80G","from_month":"2026-01","rate_fen":1250,"overflow_rate_fen":2000}`); resp.Code != http.StatusOK {
		t.Fatalf("POST /api/v1/prices = %d %s", resp.Code, resp.Body)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	sched := scheduler.NewLoop(s.Store, scheduler.LoopConfig{Policy: scheduler.DefaultPolicy(time.UTC), NodeStaleAfter: 24 * time.Hour,
		NodeLostAfter: 48 * time.Hour, Now: s.Clock, Logger: quiet})
	run := traceRun{Started: map[int64]int{}, Ended: map[int64]int{}}
	ids := make([]int64, len(jobs))
	lasts := map[int64]int{}
	for step := 0; step <= steps; step++ {
		s.SetNow(start.Add(time.Duration(step) * traceStep))
		var ending []int64
		for id, at := range run.Started {
			if _, done := run.Ended[id]; !done && step-at >= lasts[id] {
				ending = append(ending, id)
				run.Ended[id] = step
			}
		}
		b.end(ending)
		for i, j := range jobs {
			if j.Submit == step {
				resp := s.Post("/api/v1/tasks", webtest.TaskBody(map[string]string{"name": strconv.Quote(fmt.Sprintf("job-%d", i)),
					"project": strconv.Quote(j.Project), "gpus": strconv.Itoa(j.GPUs), "spec": `"A100-80G"`,
					"image": `"registry.example.com/train:1"`, "command": `["sh","-c","train"]`}))
				if resp.Code != http.StatusCreated && resp.Code != http.StatusOK {
					t.Fatalf("POST /api/v1/tasks job %d = %d %s", i, resp.Code, resp.Body)
				}
				ids[i] = webtest.Decode[api.Task](t, resp).ID
				lasts[ids[i]] = j.Steps
			}
		}
		if err := sched.Tick(ctx); err != nil {
			t.Fatal(err)
		}
		var placed []int64
		for _, id := range ids {
			if _, ok := run.Started[id]; id != 0 && !ok && taskState(t, s, id) != api.StateQueued {
				placed = append(placed, id)
				run.Started[id] = step
				if step > jobs[slices.Index(ids, id)].Submit {
					run.Waited++
				}
			}
		}
		b.start(placed)
	}
	if len(run.Ended) != len(jobs) {
		t.Fatalf("%d of %d tasks ended in %d steps; make the trace shorter or the run longer", len(run.Ended), len(jobs), steps)
	}
	run.UsedCardHours = map[string]float64{}
	for _, p := range webtest.Decode[[]api.Project](t, s.Get("/api/v1/projects")) {
		for _, q := range p.Quotas {
			run.UsedCardHours[p.Name] += q.UsedCardHours
		}
	}
	s.SetNow(start.AddDate(0, 1, 0))
	month := start.Format("2006-01")
	if resp := s.Post("/api/v1/bills/"+month+"/issue", ""); resp.Code != http.StatusOK {
		t.Fatalf("POST /api/v1/bills/%s/issue = %d %s", month, resp.Code, resp.Body)
	}
	var bills []billing.Bill
	if err := json.Unmarshal(webtest.Decode[api.MonthBills](t, s.Get("/api/v1/bills/"+month)).Bills, &bills); err != nil {
		t.Fatal(err)
	}
	run.Bills, run.Lines = map[string]billLine{}, map[int64]billLine{}
	for _, bill := range bills {
		run.Bills[bill.Project] = billLine{bill.NominalS, bill.TotalFen}
		for _, l := range bill.Lines {
			run.Lines[l.TaskID] = billLine{l.NominalS, l.AmountFen}
		}
	}
	return run
}

// taskState reads a task's state through the API.
func taskState(t *testing.T, s *webtest.Server, id int64) api.TaskState {
	return webtest.Decode[api.Task](t, s.Get("/api/v1/tasks/"+strconv.FormatInt(id, 10))).State
}

// kubeRun runs the trace's tasks as the Kubernetes pool's pods: kwok runs them, and ends
// them as FinishPod says.
type kubeRun struct{ w *world }

func (k *kubeRun) start(ids []int64) { k.w.untilState(ids, models.TaskRunning) }

func (k *kubeRun) end(ids []int64) {
	if len(ids) == 0 {
		return
	}
	pods := k.w.pods()
	for _, id := range ids {
		k.w.cluster.FinishPod(k.w.t, "default", pods[id].Name, 0)
	}
	k.w.untilState(ids, models.TaskSucceeded)
}

// untilReadyNodes waits until n nodes of the pool have registered and are ready.
func (w *world) untilReadyNodes(store *models.Store, n int) {
	w.t.Helper()
	w.until(fmt.Sprintf("%d nodes registered", n), func() map[int64]*corev1.Pod {
		nodes, err := store.Nodes(context.Background())
		if err != nil {
			w.t.Fatal(err)
		}
		got := 0
		for _, node := range nodes {
			if node.Pool == w.pool && node.State == models.NodeReady {
				got++
			}
		}
		if got < n {
			return nil
		}
		return map[int64]*corev1.Pod{}
	})
}

// agentRun is 64 agent-run nodes of 8 A100 cards on a test server, speaking the agent API.
type agentRun struct {
	s     *webtest.Server
	nodes []webtest.Registered
	// on is the node each running task reported from.
	on map[int64]webtest.Registered
}

func newAgentRun(t *testing.T, store *models.Store) *agentRun {
	a := &agentRun{s: webtest.NewServerOn(t, store, webtest.TestCfg()), on: map[int64]webtest.Registered{}}
	for i := range 64 {
		a.nodes = append(a.nodes, a.s.Register(webtest.Node(fmt.Sprintf("a100-%02d", i)).InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 8)))
	}
	return a
}

// start reports each placed task running from the node its assignment is on, as the agent
// does once it started the process.
func (a *agentRun) start(ids []int64) {
	for _, id := range ids {
		found := false
		for _, n := range a.nodes {
			if _, ok := a.s.Assigned(n, id); ok {
				a.s.Report(n, id, `{"state":"running"}`)
				a.on[id], found = n, true
				break
			}
		}
		if !found {
			a.s.Tb.Fatalf("no agent is assigned task %d", id)
		}
	}
}

// end reports each task's process exited 0.
func (a *agentRun) end(ids []int64) {
	for _, id := range ids {
		a.s.Report(a.on[id], id, `{"state":"exited","exit_code":0}`)
	}
}
