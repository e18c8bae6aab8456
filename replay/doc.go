// Package replay runs the production scheduler (scheduler.Decide), the scaling decisions
// (scaler.DecideScale) and card-hour pricing (billing.Amount) over a job trace with a
// virtual clock: a discrete-event loop that jumps from event to event (submit, finish,
// machine ready, scaling ticks) and never sleeps. Teams use it to see what a change of
// scaling thresholds or scheduling policy would have done to past work: cost against waiting
// time (kashi replay, the /calibrate page).
//
// Read parses a trace (CSV, streamed, messy rows skipped and counted), Run replays it on a
// Fleet (fixed nodes, or elastic pools from a Config) under a policy (PolicyKashi, the
// production one, or PolicyFIFO, the strict baseline), and Sweep runs every combination of
// candidate settings in parallel; a Runner runs sweeps as background jobs, a bounded number
// at once, and keeps their states a while (the /calibrate page submits to one). The same
// trace and settings give byte-identical output.
package replay
