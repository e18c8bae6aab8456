package views

// TaskAdvice is the advice for a task's next run from what its run measured: the spec and
// cards to ask for instead of what it had, and why, in numbers.
type TaskAdvice struct {
	// Kind is "right", "fewer", "smaller", "smaller-fewer" or "unused" (no card used: no
	// spec or count is advised).
	Kind             string
	Spec, FromSpec   string
	GPUs, FromGPUs   int
	IdleCards        int
	PeakMemMiB       int64
	CardMemMiB       int64
	CostPct          int
	SavingFenPerHour int64
	Slower           bool
	// TrialID is the finished trial whose figures the advice is (cost per unit of output,
	// not per hour); TimePct how long the same output takes as advised, in percent.
	TrialID int64
	TimePct int
}
