package kube

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"

	"kashi/agent"
	"kashi/models"
)

// Readings. Where a Kubernetes pool names its nodes' dcgm-exporter (kube_dcgm_url), the
// pool's controller reads each registered node's page every ReadEvery, with the agent's own
// reader (agent.DCGMSource), and stores what it read as the node's samples through the call
// an agent's samples go through (IngestSamples): the board, idle notices and reclaim, and
// the ledger's effective card-hours then work as on an agent's node.
//
// The cluster, not Kashi, decides which of a node's cards a pod gets, so the exporter's cards
// are not Kashi's cards of the same index. dcgm-exporter's Kubernetes mapping labels each card
// a pod holds with the pod and its namespace: the cards of a task's pod are given to Kashi's
// cards of that task on the node (both in index order), and the cards no task's pod holds to
// Kashi's cards no task holds, in index order. A page whose Hostname label names another
// node of the pool is not this node's, and is refused.
//
// A card the exporter labels with a pod that is no task's (another namespace's, or one of
// Kashi's namespace it did not make) is used outside Kashi: its reading carries the pod as
// an unmanaged process (user the namespace, command "pod NAME", the card's memory), so the
// board shows the use and who, and it raises the unmanaged-use alert, as a process of no task
// does on an agent's node. The exporter sees no processes (dcgm-exporter reads none), so a
// use outside any pod is not seen.

// defaultReadEvery is how often each node's exporter is read when Config.ReadEvery is zero: as
// often as an agent samples.
const defaultReadEvery = 10 * time.Second

// readsAtOnce bounds the exporter pages a pool's controller reads at a time.
const readsAtOnce = 16

// reader keeps a pool's exporters: a source per node, so that each keeps the last XID its
// cards showed, and the last error of each node, logged once until it changes.
type reader struct {
	http    *http.Client
	mu      sync.Mutex
	sources map[string]*agent.DCGMSource
	errs    map[string]string
}

// readLoop reads the nodes' exporters every ReadEvery until ctx ends.
func (pc *poolController) readLoop(ctx context.Context) {
	every := cmp.Or(pc.cfg.ReadEvery, defaultReadEvery)
	r := &reader{http: &http.Client{Timeout: min(every, 10*time.Second)}, sources: map[string]*agent.DCGMSource{},
		errs: map[string]string{}}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if err := pc.readNodes(ctx, r); err != nil && ctx.Err() == nil {
			pc.cfg.Logger.Warn("kubernetes pool: readings", "pool", pc.pool.Name, "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// readNodes reads every registered node's exporter once, under the pool's address as saved
// now (a change of it takes effect at the next round, without restarting the controller).
func (pc *poolController) readNodes(ctx context.Context, r *reader) error {
	pools, err := pc.store.ConfiguredPools(ctx)
	if err != nil {
		return err
	}
	var cfg models.PoolConfig
	for _, p := range pools {
		if p.Name == pc.pool.Name {
			cfg = p.Config
		}
	}
	if cfg.KubeDCGMURL == "" {
		return nil
	}
	nodes, err := pc.store.Nodes(ctx)
	if err != nil {
		return err
	}
	gpus := make(map[int64][]models.GPU)
	for _, n := range nodes {
		gpus[n.ID] = n.GPUs
	}
	pc.mu.Lock()
	ids := make(map[string]int64, len(pc.ids))
	for name, id := range pc.ids {
		ids[name] = id
	}
	pc.mu.Unlock()
	sem := make(chan struct{}, readsAtOnce)
	var wg sync.WaitGroup
	for name, id := range ids {
		src := r.source(name, cfg.KubeDCGMURLOf(name, pc.nodeIP(name)))
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			r.logged(pc, name, pc.readNode(ctx, src, name, id, gpus[id], ids))
		})
	}
	wg.Wait()
	r.forget(ids)
	return nil
}

// readNode reads one node's exporter and stores its cards' readings as Kashi's cards'.
func (pc *poolController) readNode(ctx context.Context, src *agent.DCGMSource, name string, id int64, gpus []models.GPU,
	pool map[string]int64) error {
	now := pc.cfg.Now().UTC().Truncate(time.Second)
	placed, readErr := src.ReadPlaced(now)
	if len(placed) == 0 {
		return readErr
	}
	as, err := pc.store.Assignments(ctx, id)
	if err != nil {
		return err
	}
	held := make(map[string][]string, len(as))
	for _, a := range as {
		held[pc.podName(a)] = a.GPUUUIDs
	}
	readings, err := nodeReadings(name, pc.namespace, placed, gpus, held, pool)
	if err != nil || len(readings) == 0 {
		return errors.Join(readErr, err)
	}
	if _, err := pc.store.IngestSamples(ctx, id, readings, now); err != nil {
		return errors.Join(readErr, err)
	}
	return readErr
}

// nodeReadings gives the exporter's readings of a node to Kashi's cards of the node: those of
// a pod of the namespace that holds cards of the node in held (pod name → Kashi's cards of
// its task there) to those cards, the rest to the cards no pod of held holds; both in index
// order. A reading of more memory than Kashi's card has is left out (the store would refuse
// it), as are readings left over. A page whose Hostname names another node of the pool is
// an error.
func nodeReadings(node, namespace string, placed []agent.PlacedSample, gpus []models.GPU, held map[string][]string,
	pool map[string]int64) ([]models.Reading, error) {
	for _, p := range placed {
		if _, ok := pool[p.Hostname]; ok && p.Hostname != node {
			return nil, fmt.Errorf("the exporter's page of node %s is node %s's (its Hostname label)", node, p.Hostname)
		}
	}
	placed = slices.Clone(placed)
	slices.SortStableFunc(placed, func(a, b agent.PlacedSample) int { return cmp.Compare(a.GPU, b.GPU) })
	byUUID := make(map[string]models.GPU, len(gpus))
	for _, g := range gpus {
		byUUID[g.UUID] = g
	}
	cards := make(map[string][]string, len(held)) // each pod's cards, in index order
	taken := map[string]bool{}
	for pod, uuids := range held {
		cards[pod] = byIndex(uuids, byUUID)
		for _, u := range uuids {
			taken[u] = true
		}
	}
	var free []string // Kashi's cards no task's pod holds, in index order
	for _, g := range gpus {
		if !taken[g.UUID] {
			free = append(free, g.UUID)
		}
	}
	next := make(map[string]int, len(held)) // the next card of each pod to give a reading
	var out []models.Reading
	for _, p := range placed {
		var uuid string
		if mine, ok := cards[p.Pod]; ok && p.Namespace == namespace {
			if next[p.Pod] < len(mine) {
				uuid = mine[next[p.Pod]]
				next[p.Pod]++
			}
		} else if len(free) > 0 {
			uuid, free = free[0], free[1:]
		}
		g, ok := byUUID[uuid]
		if !ok || p.MemoryUsedMiB > g.MemoryTotalMiB {
			continue
		}
		r := models.Reading{UUID: uuid, TS: p.TS, MemoryUsedMiB: p.MemoryUsedMiB, UtilPct: p.UtilPct,
			TempC: p.TempC, PowerW: p.PowerW, XID: p.XID}
		if _, mine := cards[p.Pod]; p.Pod != "" && (!mine || p.Namespace != namespace) {
			r.Processes = []models.ProcessReading{{UsedMemoryMiB: p.MemoryUsedMiB, Unmanaged: true, User: p.Namespace,
				Command: "pod " + p.Pod}}
		}
		out = append(out, r)
	}
	return out, nil
}

// byIndex is a task's cards in their index order.
func byIndex(uuids []string, byUUID map[string]models.GPU) []string {
	out := slices.Clone(uuids)
	slices.SortFunc(out, func(a, b string) int { return cmp.Compare(byUUID[a].Index, byUUID[b].Index) })
	return out
}

// nodeIP is the cluster node's InternalIP; "" when the cluster lists none.
func (pc *poolController) nodeIP(name string) string {
	n, err := pc.nodes.Get(name)
	if err != nil {
		return ""
	}
	for _, a := range n.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			return a.Address
		}
	}
	return ""
}

// source is the node's exporter at url, made anew when the address changed.
func (r *reader) source(node, url string) *agent.DCGMSource {
	r.mu.Lock()
	defer r.mu.Unlock()
	if s := r.sources[node]; s != nil && s.URL == url {
		return s
	}
	s := &agent.DCGMSource{URL: url, HTTP: r.http}
	r.sources[node] = s
	return s
}

// logged logs a node's error when it differs from the node's last, and its recovery.
func (r *reader) logged(pc *poolController, node string, err error) {
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	r.mu.Lock()
	last := r.errs[node]
	r.errs[node] = msg
	r.mu.Unlock()
	switch {
	case msg != "" && msg != last:
		pc.cfg.Logger.Warn("kubernetes pool: node's readings", "pool", pc.pool.Name, "node", node, "err", err)
	case msg == "" && last != "":
		pc.cfg.Logger.Info("kubernetes pool: node's readings again", "pool", pc.pool.Name, "node", node)
	}
}

// forget drops the sources and errors of nodes no longer the pool's.
func (r *reader) forget(ids map[string]int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for name := range r.sources {
		if _, ok := ids[name]; !ok {
			delete(r.sources, name)
			delete(r.errs, name)
		}
	}
}
