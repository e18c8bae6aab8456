package kube

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/workqueue"

	"kashi/models"
)

// Labels on the pods Kashi makes.
const (
	labelManagedBy = "app.kubernetes.io/managed-by"
	labelPool      = "kashi.io/pool"
	labelTask      = "kashi.io/task"
	labelAttempt   = "kashi.io/attempt"
	labelProject   = "kashi.io/project"
	fieldManager   = "kashi"
	// nodesKey is the work queue's key for the pool's set of nodes; every other key is a
	// cluster node's name.
	nodesKey = ""
	// byNode indexes the pods by the node they are bound to.
	byNode = "node"
)

// poolController runs one Kubernetes pool: informers of the selected nodes and of the pool's
// pods, a work queue of node names, and one wait per registered node for its assignments.
type poolController struct {
	pool      models.ConfiguredPool
	store     Store
	cfg       Config
	client    kubernetes.Interface
	namespace string
	// podPrefix is the pool's name in its pods' names (podName).
	podPrefix string
	selector  labels.Selector
	nodes     corelisters.NodeLister
	pods      cache.Indexer
	queue     workqueue.TypedRateLimitingInterface[string]
	synced    []cache.InformerSynced
	// startInformers starts the informers until the context ends.
	startInformers func(ctx context.Context)

	mu sync.Mutex
	// ids maps the cluster's node names to the pool's node ids, as last registered.
	ids map[string]int64
	// waits holds the cancel of each registered node's wait for its assignments.
	waits map[string]context.CancelFunc
	// state is the pool's cluster state, which this controller's errors and term go to.
	state *clusterState
	// whole holds the UIDs of the pods whose companions this term made (completePod), until
	// the pod goes.
	whole map[types.UID]bool
}

// connect reaches the pool's cluster through its kubeconfig file (from inside the cluster
// when none is set): its client, the pod namespace, and the pool's node selector.
func connect(p models.ConfiguredPool) (kubernetes.Interface, string, labels.Selector, error) {
	sel, err := labels.Parse(p.Config.KubeNodeSelector)
	if err != nil {
		return nil, "", nil, fmt.Errorf("kube_node_selector: %w", err)
	}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: p.Config.Kubeconfig}, &clientcmd.ConfigOverrides{})
	rc, err := cc.ClientConfig()
	if err != nil {
		return nil, "", nil, fmt.Errorf("kubeconfig: %w", err)
	}
	ns, _, err := cc.Namespace()
	if err != nil {
		return nil, "", nil, fmt.Errorf("kubeconfig: %w", err)
	}
	rc.QPS, rc.Burst = max(rc.QPS, clientQPS), max(rc.Burst, clientBurst)
	client, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, "", nil, err
	}
	return client, ns, sel, nil
}

// clientQPS and clientBurst bound the requests a pool's controller makes of its apiserver:
// client-go's default (5 a second, 10 at once) would hold a pass's placements to a few pods
// a second, and a placed task costs one request (two with its own env). The apiserver
// protects itself (API Priority and Fairness); this bound only keeps a runaway controller
// from flooding it. Fixed, not a pool setting: nothing about a pool calls for another.
const (
	clientQPS   = 500
	clientBurst = 1000
)

// newPoolControllerFor sets up a controller of the pool's cluster and its informers.
func newPoolControllerFor(p models.ConfiguredPool, store Store, cfg Config, client kubernetes.Interface, ns string,
	sel labels.Selector, state *clusterState) *poolController {
	pc := &poolController{pool: p, store: store, cfg: cfg, client: client, namespace: ns, selector: sel, podPrefix: dnsLabel(p.Name),
		state: state,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[string](),
			workqueue.TypedRateLimitingQueueConfig[string]{Name: "kashi-" + p.Name}),
		ids: make(map[string]int64), waits: make(map[string]context.CancelFunc), whole: make(map[types.UID]bool)}
	nodeInf := informers.NewSharedInformerFactoryWithOptions(client, cfg.Resync,
		informers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = sel.String() })).Core().V1().Nodes()
	podInf := informers.NewSharedInformerFactoryWithOptions(client, cfg.Resync, informers.WithNamespace(ns),
		informers.WithTweakListOptions(func(o *metav1.ListOptions) {
			o.LabelSelector = labels.Set{labelManagedBy: fieldManager, labelPool: p.Name}.String()
		})).Core().V1().Pods()
	pc.nodes = nodeInf.Lister()
	// Every change of a node may change the pool's set (joins, leaves, readiness, cards).
	nodeInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { pc.queue.Add(nodesKey) },
		UpdateFunc: func(old, cur any) { pc.queue.Add(nodesKey) },
		DeleteFunc: func(any) { pc.queue.Add(nodesKey) },
	})
	podInf.Informer().AddIndexers(cache.Indexers{byNode: func(obj any) ([]string, error) {
		return []string{obj.(*corev1.Pod).Spec.NodeName}, nil
	}, byTask: podTask})
	// podOf is the pod of an event, a deleted one's last known state included.
	podOf := func(obj any) (*corev1.Pod, bool) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		pod, ok := obj.(*corev1.Pod)
		return pod, ok
	}
	syncPod := func(obj any) {
		if pod, ok := podOf(obj); ok {
			pc.queue.Add(pod.Spec.NodeName)
		}
	}
	podInf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: syncPod, UpdateFunc: func(_, cur any) { syncPod(cur) },
		DeleteFunc: func(obj any) {
			if pod, ok := podOf(obj); ok {
				pc.queue.Add(pod.Spec.NodeName)
				pc.mu.Lock()
				delete(pc.whole, pod.UID)
				pc.mu.Unlock()
			}
		},
	})
	pc.pods = podInf.Informer().GetIndexer()
	pc.synced = []cache.InformerSynced{nodeInf.Informer().HasSynced, podInf.Informer().HasSynced}
	pc.startInformers = func(ctx context.Context) {
		go nodeInf.Informer().RunWithContext(ctx)
		go podInf.Informer().RunWithContext(ctx)
	}
	return pc
}

// run runs the controller until ctx ends; it is called while this replica holds the pool's
// Lease, and counts the pool's nodes and pods for its cluster state meanwhile.
func (pc *poolController) run(ctx context.Context) {
	log := pc.cfg.Logger.With("pool", pc.pool.Name)
	pc.state.lead(pc)
	defer pc.state.lead(nil)
	defer pc.queue.ShutDown()
	pc.startInformers(ctx)
	if !cache.WaitForCacheSync(ctx.Done(), pc.synced...) {
		return
	}
	log.Info("kubernetes pool: watching the cluster", "namespace", pc.namespace, "selector", pc.selector.String())
	pc.queue.Add(nodesKey)
	go pc.readLoop(ctx)
	go func() {
		t := time.NewTicker(pc.cfg.Resync)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				pc.queue.ShutDown()
				return
			case <-t.C:
				pc.queue.Add(nodesKey)
			}
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for pc.work(ctx, log) {
			}
		})
	}
	wg.Wait()
}

// workers is how many nodes of a pool are synced at once: each sync makes its node's new pods
// one request after another, so a pass that places tasks on hundreds of nodes reaches the
// cluster as fast as this many round trips at once allow.
const workers = 32

// work syncs the next key of the queue; false once the queue shut down.
func (pc *poolController) work(ctx context.Context, log *slog.Logger) bool {
	key, quit := pc.queue.Get()
	if quit {
		return false
	}
	defer pc.queue.Done(key)
	var err error
	if key == nodesKey {
		err = pc.syncNodes(ctx)
	} else {
		err = pc.syncNode(ctx, key)
	}
	switch {
	case err == nil:
		pc.queue.Forget(key)
	case ctx.Err() == nil:
		log.Warn("kubernetes pool: sync", "node", key, "err", err)
		pc.state.failed(pc.cfg.Now(), err)
		pc.queue.AddRateLimited(key)
	}
	return true
}
