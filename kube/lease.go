package kube

import (
	"context"
	"sync"

	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// lead runs the pool's controller while this replica holds the pool's Lease (kashi-POOL in
// the pod namespace), until ctx ends: each term a fresh controller (informers, queue, node
// waits) runs until the Lease is lost or ctx ends, and the Lease is handed back only once it
// has stopped, so that two replicas never act on the pool's pods at once. It runs inside the
// control loops, which only the holder of the database's leader lock runs: the Lease also
// keeps a replica that lost that lock (its database connection gone) from acting on the
// cluster until its controller stopped or its Lease ran out.
func lead(ctx context.Context, pc func() *poolController, lock resourcelock.Interface, cfg Config) {
	for ctx.Err() == nil {
		// The elector's context ends when the controller of the term stopped (or, not leading,
		// with ctx): its end hands the Lease back.
		ectx, ecancel := context.WithCancel(context.WithoutCancel(ctx))
		var mu sync.Mutex
		var running chan struct{}
		stop := context.AfterFunc(ctx, func() {
			mu.Lock()
			r := running
			mu.Unlock()
			if r != nil {
				<-r
			}
			ecancel()
		})
		le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
			Lock: lock, Name: lock.Describe(), ReleaseOnCancel: true,
			LeaseDuration: cfg.LeaseDuration, RenewDeadline: cfg.LeaseDuration * 2 / 3, RetryPeriod: cfg.LeaseDuration / 7,
			Callbacks: leaderelection.LeaderCallbacks{
				OnStartedLeading: func(lctx context.Context) {
					mu.Lock()
					if ctx.Err() != nil || lctx.Err() != nil { // stopping, or the term already over
						mu.Unlock()
						ecancel()
						return
					}
					r := make(chan struct{})
					running = r
					mu.Unlock()
					defer close(r)
					defer ecancel()
					rctx, cancel := context.WithCancel(lctx)
					defer cancel()
					defer context.AfterFunc(ctx, cancel)()
					cfg.Logger.Info("kubernetes pool: holding the lease", "lease", lock.Describe(), "identity", lock.Identity())
					pc().run(rctx)
				},
				OnStoppedLeading: func() {},
			},
		})
		if err != nil {
			cfg.Logger.Error("kubernetes pool: lease", "lease", lock.Describe(), "err", err)
			stop()
			ecancel()
			return
		}
		le.Run(ectx)
		stop()
		ecancel()
		// A term's controller may outlive the elector when the Lease was lost: wait for it
		// before trying for the next (its context has ended; one not started yet never runs).
		mu.Lock()
		r := running
		mu.Unlock()
		if r != nil {
			<-r
		}
	}
}
