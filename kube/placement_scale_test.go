package kube_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"kashi/api"
	"kashi/kube"
	"kashi/kube/kubetest"
	"kashi/models"
	"kashi/models/modelstest"
	"kashi/scheduler"
	"kashi/web/webtest"
)

// placementScale is the benchmark's fleet and queue: 512 nodes of 8 cards and 10,000 pending
// one-card tasks, so that one scheduler pass places 4,096 of them; under -short (CI's smoke
// run) 32 nodes and 600 tasks.
func placementScale() (nodes, tasks int) {
	if testing.Short() {
		return 32, 600
	}
	return 512, 10_000
}

// BenchmarkPlacementsReachTheCluster measures how fast one scheduler pass's placements reach
// the machines: on a Kubernetes pool, from the pass's start until every placed task's pod is
// made and bound to its node (seen by an informer of the pods); on agent-run nodes, until every
// one of the agents, long-polling its assignments over HTTP as the agent does, has been
// given its tasks. Each on a fresh SQLite store; placements/s is the figure of merit.
// Run it with -benchtime 1x: each iteration builds its fleet and queue anew.
func BenchmarkPlacementsReachTheCluster(b *testing.B) {
	b.Run("kubernetes", func(b *testing.B) {
		cluster := kubetest.Start(b)
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			placed, took := kubePlacements(b, cluster, fmt.Sprintf("scale-%d", i))
			b.ReportMetric(float64(placed)/took.Seconds(), "placements/s")
		}
	})
	b.Run("agents", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			placed, took := agentPlacements(b)
			b.ReportMetric(float64(placed)/took.Seconds(), "placements/s")
		}
	})
}

// scaleQueue fills the store with the benchmark's pending tasks, 32 submits at a time as
// callers of the API would, and returns a scheduler over it.
func scaleQueue(b *testing.B, s *webtest.Server, tasks int) *scheduler.Loop {
	ctx := context.Background()
	s.Projects("vision")
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for range 32 {
		wg.Go(func() {
			for int(next.Add(1)) <= tasks {
				if _, _, err := s.Store.CreateTask(ctx, models.NewTask{Project: "vision", Name: "scale", Owner: "tester", GPUs: 1,
					Spec: "A100-80G", Queue: models.QueueLong, Priority: "normal", Command: []string{"train"},
					Image: "registry.example.com/train:1", DataReady: true}, models.DefaultTaskLimits, s.Clock()); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	return scheduler.NewLoop(s.Store, scheduler.LoopConfig{Policy: scheduler.DefaultPolicy(time.UTC), NodeStaleAfter: 24 * time.Hour,
		NodeLostAfter: 48 * time.Hour, Now: s.Clock, Logger: quiet})
}

// kubePlacements runs the benchmark's pass on a Kubernetes pool of kwok nodes named
// PREFIX-N and returns how many tasks it placed and how long until their pods were made.
func kubePlacements(b *testing.B, cluster *kubetest.Cluster, prefix string) (int, time.Duration) {
	ctx := context.Background()
	nodes, tasks := placementScale()
	store := modelstest.SQLite(b, models.Options{})
	s := webtest.NewServerOn(b, store, webtest.TestCfg())
	for i := range nodes {
		cluster.AddGPUNode(b, fmt.Sprintf("%s-%d", prefix, i), 8, map[string]string{"kashi.test/pool": prefix,
			"nvidia.com/gpu.product": "NVIDIA-A100-SXM4-80GB", "nvidia.com/gpu.memory": "81920"})
	}
	body := fmt.Sprintf(`{"provider":"static","spec":"A100-80G","gpus_per_node":8,"backend":"kubernetes","kube_node_selector":"kashi.test/pool=%s","kubeconfig":%q,"require_image":true}`,
		prefix, cluster.Kubeconfig)
	if resp := s.Post("/api/v1/pools/"+prefix, body); resp.Code != http.StatusOK {
		b.Fatalf("POST /api/v1/pools/%s = %d %s", prefix, resp.Code, resp.Body)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	ctl := kube.New(store, kube.Config{Now: s.Clock, Logger: quiet, Resync: 10 * time.Second})
	cctx, cancel := context.WithCancel(ctx)
	defer func() { cancel(); ctl.Stop() }()
	if err := ctl.Tick(cctx); err != nil {
		b.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		ns, err := store.Nodes(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if len(ns) == nodes {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d of %d nodes registered in 5 minutes", len(ns), nodes)
		}
	}
	sched := scaleQueue(b, s, tasks)
	// An informer of the pool's pods, not a bare watch: at hundreds of pods a second the
	// apiserver may end a watch, and an informer lists and watches again.
	made := make(chan string, 1024)
	inf := informers.NewSharedInformerFactoryWithOptions(cluster.Client, 0, informers.WithNamespace("default"),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = "kashi.io/pool=" + prefix })).Core().V1().Pods().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
		if p, ok := obj.(*corev1.Pod); ok && p.Spec.NodeName != "" {
			made <- p.Name
		}
	}}); err != nil {
		b.Fatal(err)
	}
	ictx, stopInf := context.WithCancel(ctx)
	defer stopInf()
	go inf.RunWithContext(ictx)
	if !cache.WaitForCacheSync(ictx.Done(), inf.HasSynced) {
		b.Fatal("the pods' informer did not sync")
	}

	b.StartTimer()
	start := time.Now()
	if err := sched.Tick(ctx); err != nil {
		b.Fatal(err)
	}
	placed := min(tasks, nodes*8)
	bound := map[string]bool{}
	timeout := time.After(10 * time.Minute)
	for len(bound) < placed {
		select {
		case name := <-made:
			bound[name] = true
		case <-timeout:
			b.Fatalf("%d of %d pods made in 10 minutes", len(bound), placed)
		}
	}
	took := time.Since(start)
	b.StopTimer()
	return placed, took
}

// agentPlacements runs the benchmark's pass on agent-run nodes, each a goroutine
// long-polling its assignments over HTTP, and returns how many tasks it placed and how long
// until every agent had them.
func agentPlacements(b *testing.B) (int, time.Duration) {
	ctx := context.Background()
	nodes, tasks := placementScale()
	s := webtest.NewServerOn(b, modelstest.SQLite(b, models.Options{}), webtest.TestCfg())
	srv := httptest.NewServer(s.E)
	defer srv.Close()
	agents := make([]webtest.Registered, nodes)
	for i := range agents {
		agents[i] = s.Register(webtest.Node(fmt.Sprintf("a100-%03d", i)).InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 8))
	}
	sched := scaleQueue(b, s, tasks)
	placed := min(tasks, nodes*8)
	var delivered atomic.Int64
	done := make(chan struct{})
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var ready sync.WaitGroup
	ready.Add(len(agents))
	for _, a := range agents {
		go pollAssignments(pctx, b, srv.URL, a.Token, ready.Done, func(n int) {
			if delivered.Add(int64(n)) == int64(placed) {
				close(done)
			}
		})
	}
	ready.Wait()
	time.Sleep(time.Second) // every agent is in its long poll

	b.StartTimer()
	start := time.Now()
	if err := sched.Tick(ctx); err != nil {
		b.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Minute):
		b.Fatalf("%d of %d assignments delivered in 10 minutes", delivered.Load(), placed)
	}
	took := time.Since(start)
	b.StopTimer()
	return placed, took
}

// pollAssignments is an agent's loop over its assignments: a first read (then started),
// then long polls with the list's ETag, reporting to got the tasks new to it.
func pollAssignments(ctx context.Context, b *testing.B, base, token string, started func(), got func(int)) {
	seen := map[int64]bool{}
	etag := ""
	for i := 0; ctx.Err() == nil; i++ {
		url := base + api.PathAssignments
		if i > 0 {
			url += "?" + api.QueryWait + "=30s"
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			b.Error(err)
			return
		}
		req.Header.Set("Authorization", "Bearer "+token)
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return // the benchmark ended
		}
		var body api.AssignmentsResponse
		if resp.StatusCode == http.StatusOK {
			err = json.NewDecoder(resp.Body).Decode(&body)
			etag = resp.Header.Get("ETag")
		}
		resp.Body.Close()
		if err != nil {
			b.Error(err)
			return
		}
		if i == 0 {
			started()
		}
		n := 0
		for _, a := range body.Tasks {
			if !seen[a.TaskID] {
				seen[a.TaskID] = true
				n++
			}
		}
		if n > 0 {
			got(n)
		}
	}
}
