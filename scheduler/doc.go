// Package scheduler decides who gets cards next. Its core is Decide, a pure function from a
// snapshot of nodes, running and pending tasks to a plan of placements and explained waits;
// the loops around it read the store, call Decide and apply the plan.
package scheduler
