// Package proof holds the crash, replica and month proofs: tests that build the kashi
// binary, run `kashi serve --demo` as subprocesses on one database — killing them with
// SIGKILL at random moments, or running one a simulated month at the demo's top speed — and
// then check the ledger's invariants by reading the database. They are skipped unless asked
// for (see proc_test.go's flags); `.ci/run` runs their short variants and BENCHMARKS.md
// records the long ones.
package proof
