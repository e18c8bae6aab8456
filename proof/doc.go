// Package proof holds the crash and replica proofs: tests that build the kashi binary, run
// `kashi serve --demo` as subprocesses on one database, kill them with SIGKILL at random
// moments, and then check the ledger's invariants by reading the database. They are skipped
// unless asked for (see proc_test.go's flags); `.ci/run` runs their short variants and
// BENCHMARKS.md records the long ones.
package proof
