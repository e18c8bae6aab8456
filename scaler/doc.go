// Package scaler is the scaling and release loop. Each tick reconciles every managed pool's
// intents with its provider's machines (decideReconcile, pure), snapshots sizes, demand from
// the queue's plan, GPU memory and idle timers, decides with DecideScale (pure: scale up,
// drain, remove, idle notices and reclaims, with cooldowns and reasons), and applies the
// actions through the pool's fleet provider. Handlers never call a provider; they change the
// desired state and wake the loop.
package scaler
