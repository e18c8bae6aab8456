// Package kube is the Kubernetes backend: the pools whose configuration says backend
// kubernetes take their nodes from a cluster and run their tasks there as Pods. Kashi still
// decides who gets which cards (the scheduler's Decide, quotas, lanes, the ledger): for each
// such pool a controller, run by the leader among the control loops, plays the part the agent
// plays on a machine, through the same store calls. The cluster's nodes that the pool's label
// selector selects register as the pool's nodes with their nvidia.com/gpu as GPUs (a node
// gone from the cluster is a lost machine); a task placed on one becomes a Pod bound to it
// (spec.nodeName), made by server-side apply; the Pod's phase and its container's exit code
// are the task's reports; a stop deletes the Pod with its grace period. See
// docs/kubernetes.md for what it does not do yet.
package kube

import (
	"context"
	"log/slog"
	"maps"
	"os"
	"sync"
	"time"

	"github.com/google/uuid"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/leaderelection/resourcelock"

	"kashi/api"
	"kashi/models"
)

// Store is what the controllers read and write: the calls an agent's requests make.
type Store interface {
	ConfiguredPools(ctx context.Context) ([]models.ConfiguredPool, error)
	Nodes(ctx context.Context) ([]models.NodeGPUs, error)
	RemovedNodes(ctx context.Context, poolID int64, hostnames []string) (map[string]models.Node, error)
	RegisterNode(ctx context.Context, req models.NodeRegistration, tokenHash string, now time.Time) (models.Node, error)
	NodesSeen(ctx context.Context, ids []int64, now time.Time) error
	MachineGone(ctx context.Context, id int64, now time.Time) (*models.LostNode, error)
	CordonNode(ctx context.Context, nodeID int64, on bool) (bool, error)
	WaitAssignments(ctx context.Context, nodeID int64) (*models.AssignmentWait, error)
	Assignments(ctx context.Context, nodeID int64) ([]models.Assignment, error)
	ConfirmRunning(ctx context.Context, nodeID int64, ids []int64, now time.Time) error
	ReportTaskStatus(ctx context.Context, nodeID, taskID int64, r models.TaskReport, now time.Time) error
	TaskByID(ctx context.Context, id int64) (models.TaskRow, error)
	Machines(ctx context.Context, poolID int64) ([]models.Machine, error)
	IngestSamples(ctx context.Context, nodeID int64, samples []models.Reading, now time.Time) (models.IngestResult, error)
}

// Config is how the controllers run.
type Config struct {
	// Wake wakes the scheduler: a node came or went, or a task's pod ended.
	Wake func()
	// StopGrace is a stopped task's pod's grace period; default 30 s, as the agent's.
	StopGrace time.Duration
	// ReadEvery is how often each node's dcgm-exporter is read (readings.go); default 10 s.
	ReadEvery time.Duration
	// Resync is how often each node is looked at again without an event; default 30 s. The
	// nodes the cluster lists as Ready are marked seen then, so it must stay well under the
	// scheduler's silence limit.
	Resync time.Duration
	Now    func() time.Time
	// Wall is the cluster's clock, which ended pods' times are on (their retention); default
	// time.Now.
	Wall   func() time.Time
	Logger *slog.Logger
	// Identity is this replica's name as a Lease holder; default the host name (a pod's
	// name in the cluster) and a random suffix.
	Identity string
	// LeaseDuration is how long a pool's Lease holds without renewal (renewed within two
	// thirds of it, tried for every seventh); default 15 s.
	LeaseDuration time.Duration
}

// Controller keeps one running pool controller per Kubernetes pool.
type Controller struct {
	store Store
	cfg   Config
	mu    sync.Mutex
	pools map[string]*poolRun
	// states are what the Kubernetes pools' controllers know of their clusters, by pool,
	// under their own lock (Tick holds mu while it waits for a controller to stop).
	smu    sync.Mutex
	states map[string]*clusterState
}

// poolRun is a running pool controller and what it was started with.
type poolRun struct {
	key    string
	cancel context.CancelFunc
	done   chan struct{}
}

// New returns a controller; Tick starts the pools' controllers.
func New(store Store, cfg Config) *Controller {
	if cfg.StopGrace <= 0 {
		cfg.StopGrace = 30 * time.Second
	}
	if cfg.Resync <= 0 {
		cfg.Resync = 30 * time.Second
	}
	if cfg.Identity == "" {
		host, _ := os.Hostname()
		cfg.Identity = host + "_" + uuid.NewString()
	}
	if cfg.LeaseDuration <= 0 {
		cfg.LeaseDuration = 15 * time.Second
	}
	if cfg.Wall == nil {
		cfg.Wall = time.Now
	}
	if cfg.Wake == nil {
		cfg.Wake = func() {}
	}
	return &Controller{store: store, cfg: cfg, pools: make(map[string]*poolRun), states: make(map[string]*clusterState)}
}

// Tick starts a controller for each Kubernetes pool that has none running (or whose cluster
// settings changed) and stops those of pools that are no longer Kubernetes pools. Each runs
// while this replica holds the pool's Lease in the cluster (see lead), until ctx ends: the
// control loops' context, which ends when this replica stops leading them.
func (c *Controller) Tick(ctx context.Context) error {
	pools, err := c.store.ConfiguredPools(ctx)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	want := make(map[string]bool)
	for _, p := range pools {
		if !p.Config.Kubernetes() {
			continue
		}
		want[p.Name] = true
		st := c.state(p.Name)
		key := p.Config.Kubeconfig + "\x00" + p.Config.KubeNodeSelector + "\x00" + p.Config.KubePodRetention().String() + "\x00" + p.Config.KubeScaling
		if r := c.pools[p.Name]; r != nil && r.key == key && !r.stopped() {
			continue
		}
		c.stop(p.Name)
		client, ns, sel, err := connect(p)
		if err != nil {
			c.cfg.Logger.Warn("kubernetes pool", "pool", p.Name, "err", err)
			st.checked(c.cfg.Now(), err)
			continue
		}
		lock := &resourcelock.LeaseLock{LeaseMeta: metav1.ObjectMeta{Name: "kashi-" + dnsLabel(p.Name), Namespace: ns},
			Client: client.CoordinationV1(), LockConfig: resourcelock.ResourceLockConfig{Identity: c.cfg.Identity}}
		pctx, cancel := context.WithCancel(ctx)
		r := &poolRun{key: key, cancel: cancel, done: make(chan struct{})}
		c.pools[p.Name] = r
		go probe(pctx, client, st, c.cfg)
		go func() {
			defer close(r.done)
			lead(pctx, func() *poolController { return newPoolControllerFor(p, c.store, c.cfg, client, ns, sel, st) }, lock, c.cfg)
		}()
	}
	for name := range c.pools {
		if !want[name] {
			c.stop(name)
		}
	}
	c.smu.Lock()
	defer c.smu.Unlock()
	for name := range c.states {
		if !want[name] {
			delete(c.states, name)
		}
	}
	return nil
}

// state is the named pool's cluster state, made when new.
func (c *Controller) state(name string) *clusterState {
	c.smu.Lock()
	defer c.smu.Unlock()
	st := c.states[name]
	if st == nil {
		st = &clusterState{}
		c.states[name] = st
	}
	return st
}

// ClusterStates is what this replica's controllers know of their Kubernetes pools' clusters,
// by pool name: the one place the pools page and API read it from. A Kubernetes pool this
// replica runs no controller of (it does not lead the control loops) is not in it.
func (c *Controller) ClusterStates() map[string]api.PoolCluster {
	c.smu.Lock()
	states := make(map[string]*clusterState, len(c.states))
	maps.Copy(states, c.states)
	c.smu.Unlock()
	out := make(map[string]api.PoolCluster, len(states))
	for name, st := range states {
		out[name] = st.wire()
	}
	return out
}

// Stop stops every pool controller and waits for them.
func (c *Controller) Stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for name := range c.pools {
		c.stop(name)
	}
}

// stop stops the named pool's controller and waits for it; c.mu is held.
func (c *Controller) stop(name string) {
	r := c.pools[name]
	if r == nil {
		return
	}
	r.cancel()
	<-r.done
	delete(c.pools, name)
}

func (r *poolRun) stopped() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}
