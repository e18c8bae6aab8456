package api

import "time"

// PoolBoot is a pool's machines that failed to boot in a row, under "boot" in each pool of
// GET /api/v1/pools and in the answer of POST /api/v1/pools/{name}/resume. A pool backs off
// after each failure (no machine is asked for before RetryAt) and fails once Failures reaches
// Limit: it then asks for no machine until an admin resumes it. A machine that boots ends
// the run.
type PoolBoot struct {
	// Failing is true while the pool has stopped asking for machines (its state is
	// "failing"); FailingSince says since when.
	Failing      bool       `json:"failing"`
	FailingSince *time.Time `json:"failing_since"`
	// Failures is how many machines in a row failed to boot; Limit how many stop the pool.
	Failures int `json:"failures"`
	Limit    int `json:"limit"`
	// LastFailureAt is when the last failed; LastFailureReason its code (boot-timeout,
	// machine-failed) and LastFailure its numbers in English. Null and empty without
	// failures.
	LastFailureAt     *time.Time `json:"last_failure_at"`
	LastFailureReason string     `json:"last_failure_reason"`
	LastFailure       string     `json:"last_failure"`
	// RetryAt is when the back-off after the last failure ends, while the pool backs off;
	// null when it does not (no failure, the back-off over, or the pool failing).
	RetryAt *time.Time `json:"retry_at"`
}
