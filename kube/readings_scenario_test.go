package kube_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"kashi/api"
	"kashi/billing"
	"kashi/kube/kubetest"
	"kashi/models"
	"kashi/models/modelstest"
	"kashi/scaler"
	"kashi/web/webtest"
)

// TestKubernetesReadings reads the kwok nodes' cards from a test server playing their
// dcgm-exporter, on SQLite and on Postgres: the pool's kube_dcgm_url is checked (422 naming
// it); once set, every card of the pool gets its readings through the agents' ingest path,
// each task's cards those of its own pod (the cluster gave the pods other cards than Kashi's
// of the same index); the board shows them; the idle pod's task gets the idle notice and is
// reclaimed (its pod deleted) while the busy one is not; a pod Kashi did not make, holding
// two cards of a node without tasks, shows on those cards as use outside Kashi, with its
// namespace and name; and the bill's effective card-hours follow the readings: all of the
// busy task's held time, none of the idle one's.
func TestKubernetesReadings(t *testing.T) {
	cluster := kubetest.Start(t)
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, store *models.Store) {
		ctx := context.Background()
		db := dbOf(t)
		w := newWorld(t, cluster, store, db)
		exporter := cluster.StartExporter(t, "default", 8)

		pools, err := store.ConfiguredPools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var cfg models.PoolConfig
		for _, p := range pools {
			if p.Name == w.pool {
				cfg = p.Config
			}
		}
		cfg.KubeDCGMURL = exporter.URL + "/metrics" // names no node
		resp := w.s.Post("/api/v1/pools/"+w.pool, webtest.MustJSON(t, cfg))
		webtest.WantAPIError(t, "a kube_dcgm_url naming no node", resp, http.StatusUnprocessableEntity, "kube_dcgm_url")

		busy, idle := w.submit("busy", 4), w.submit("idle", 4)
		w.tick()
		w.untilState([]int64{busy, idle}, models.TaskRunning)
		pods := w.pods()
		exporter.SetUse(pods[busy].Name, 95, 60000)
		exporter.SetUse(pods[idle].Name, 0, 2000)
		outsideNode := w.nodeWithoutPods(pods)
		exporter.Outside(outsideNode, "team-b", "notebook-0", 2, 40, 30000)
		// The exporter is named once its pods' use is set: a reading at the first instant
		// taken before would stand for it (a later one at the same instant is a duplicate).
		cfg.KubeDCGMURL = exporter.URL + "/" + models.DCGMNodeName + "/metrics"
		cfg.ReclaimIdleS, cfg.ReclaimGraceS, cfg.ReclaimSetupGraceS = 600, 600, 60
		if resp := w.s.Post("/api/v1/pools/"+w.pool, webtest.MustJSON(t, cfg)); resp.Code != http.StatusOK {
			t.Fatalf("POST /api/v1/pools/%s with kube_dcgm_url = %d %s", w.pool, resp.Code, resp.Body)
		}

		quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
		scale := scaler.New(store, scaler.Config{NodeStaleAfter: 24 * time.Hour, Location: time.UTC, Now: w.s.Clock, Logger: quiet})
		start := w.s.Clock()
		var noticed, reclaimed time.Duration
		for m := time.Duration(0); m <= 60*time.Minute; m += 5 * time.Minute {
			now := start.Add(m)
			w.s.SetNow(now)
			w.untilRead(store, now)
			plan, err := scale.RunOnce(ctx, now)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range plan.Actions {
				switch {
				case a.TaskID == busy:
					t.Errorf("at +%v the busy task's cards got %s", m, a.Kind)
				case a.TaskID == idle && a.Kind == scaler.ActionIdleNotice:
					noticed = m
				case a.TaskID == idle && a.Kind == scaler.ActionReclaim:
					reclaimed = m
					w.untilState([]int64{idle}, models.TaskReclaimed)
				}
			}
			if m == 5*time.Minute {
				w.checkBoard(map[int64]int{busy: 95, idle: 0})
				w.checkOutside(outsideNode, "team-b pod notebook-0 (30000 MiB)")
			}
		}
		if noticed == 0 || reclaimed != noticed+10*time.Minute {
			t.Fatalf("the idle task's notice at +%v, reclaim at +%v; want a notice once idle 10 minutes, the reclaim 10 minutes on", noticed, reclaimed)
		}
		if _, ok := w.pods()[idle]; ok {
			t.Errorf("the reclaimed task's pod is still there")
		}
		cluster.FinishPod(t, "default", pods[busy].Name, 0)
		w.untilState([]int64{busy}, models.TaskSucceeded)

		// The ledger: the busy task's held hour is all effective, the idle task's held
		// time none of it.
		if err := store.RollUp(ctx, start.Add(75*time.Minute), 30*24*time.Hour); err != nil {
			t.Fatal(err)
		}
		bill := webtest.Decode[billing.Bill](t, w.s.Get("/api/v1/bills/vision/"+start.Format("2006-01")+"?format=json"))
		lines := map[int64]billing.Line{}
		for _, l := range bill.Lines {
			lines[l.TaskID] = l
		}
		if b := lines[busy]; b.NominalS != 4*3600 || b.EffectiveS != 4*3600 {
			t.Errorf("the busy task's bill line: nominal %d s, effective %d s; want 4 cards × 1 h both", b.NominalS, b.EffectiveS)
		}
		held := int64(4 * reclaimed.Seconds())
		if i := lines[idle]; i.NominalS != held || i.EffectiveS != 0 || i.Idle == 0 {
			t.Errorf("the idle task's bill line: nominal %d s, effective %d s, idle %d s; want %d held, none effective, some idle",
				i.NominalS, i.EffectiveS, i.Idle, held)
		}
	})
}

// untilRead waits until every card of the pool's nodes has its reading of now.
func (w *world) untilRead(store *models.Store, now time.Time) {
	w.t.Helper()
	w.until("every card read at "+now.Format(time.TimeOnly), func() map[int64]*corev1.Pod {
		nodes, err := store.Nodes(context.Background())
		if err != nil {
			w.t.Fatal(err)
		}
		n := 0
		for _, node := range nodes {
			for _, g := range node.GPUs {
				if node.Pool == w.pool && g.SampledAt != nil && g.SampledAt.Equal(now) {
					n++
				}
			}
		}
		if n < 64 {
			return nil
		}
		return map[int64]*corev1.Pod{}
	})
}

// nodeWithoutPods is a node of the pool that none of pods is bound to.
func (w *world) nodeWithoutPods(pods map[int64]*corev1.Pod) string {
	w.t.Helper()
	bound := map[string]bool{}
	for _, p := range pods {
		bound[p.Spec.NodeName] = true
	}
	for i := range 8 {
		if name := fmt.Sprintf("%s-gpu-%d", strings.TrimPrefix(w.pool, "k8s-"), i); !bound[name] {
			return name
		}
	}
	w.t.Fatal("every node of the pool runs a pod")
	return ""
}

// checkOutside checks that node's cards 0 and 1, and no other card of the pool, show 30000
// MiB used outside Kashi by who, in the API and as a label on the board, and that the
// queue's capacity panel counts them free no more.
func (w *world) checkOutside(node, who string) {
	w.t.Helper()
	var got []string
	for _, g := range webtest.Decode[[]api.GPU](w.t, w.s.Get("/api/v1/gpus?pool="+w.pool)) {
		if g.UnmanagedMiB != 0 || g.UnmanagedWho != "" {
			got = append(got, fmt.Sprintf("%s#%d %d MiB by %s", g.Node, g.Index, g.UnmanagedMiB, g.UnmanagedWho))
		}
	}
	want := []string{fmt.Sprintf("%s#0 30000 MiB by %s", node, who), fmt.Sprintf("%s#1 30000 MiB by %s", node, who)}
	if diff := cmp.Diff(want, got); diff != "" {
		w.t.Errorf("GET /api/v1/gpus: cards used outside Kashi (-want +got):\n%s", diff)
	}
	doc := webtest.Parse(w.t, w.s.Get("/?pool="+w.pool).Body.String())
	if labels := doc.Find(`[data-testid="label-unmanaged"][title="` + who + `"]`); labels.Length() != 2 {
		w.t.Errorf("the board labels %d cards as used outside Kashi by %q, want 2", labels.Length(), who)
	}
	// The scheduler counts them neither held nor free: no task is placed on them.
	for _, c := range webtest.Decode[api.Queue](w.t, w.s.Get("/api/v1/queue")).Capacity {
		if unheld := c.Total - c.Held - c.Free - c.Booked; unheld != 2 {
			w.t.Errorf("GET /api/v1/queue: %s has %d cards, %d held, %d free, %d booked: %d neither, want the 2 used outside Kashi",
				c.Spec, c.Total, c.Held, c.Free, c.Booked, unheld)
		}
	}
}

// checkBoard checks that the board's JSON and its page show each task's 4 cards at the
// task's utilization (util by task id).
func (w *world) checkBoard(util map[int64]int) {
	w.t.Helper()
	gpus := webtest.Decode[[]api.GPU](w.t, w.s.Get("/api/v1/gpus?pool="+w.pool))
	doc := webtest.Parse(w.t, w.s.Get("/?pool="+w.pool).Body.String())
	for id, want := range util {
		n := 0
		for _, g := range gpus {
			if g.TaskID != nil && *g.TaskID == id {
				n++
				if g.UtilPct != want {
					w.t.Errorf("GET /api/v1/gpus: card %s of task %d reads %d %%, want %d %%", g.UUID, id, g.UtilPct, want)
				}
			}
		}
		if n != 4 {
			w.t.Errorf("GET /api/v1/gpus: task %d holds %d cards, want 4", id, n)
		}
		cards := doc.Find(`[data-testid="gpu-card"]:has(a[data-testid="card-task"][href="/tasks/` + strconv.FormatInt(id, 10) + `"])`)
		if cards.Length() != 4 {
			w.t.Errorf("the board shows %d cards of task %d, want 4", cards.Length(), id)
		}
		cards.Each(func(_ int, c *goquery.Selection) {
			if got := strings.TrimSpace(c.Find(".metric .v").First().Text()); got != strconv.Itoa(want)+"%" {
				w.t.Errorf("the board's card %s of task %d reads %q, want %d%%", c.AttrOr("data-uuid", "?"), id, got, want)
			}
		})
	}
}
