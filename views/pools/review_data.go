package pools

import "time"

// ReviewData is the pilot review page of a pool (/pools/NAME/review): the period's form, a
// verdict per question, then the peaks, troughs, idle cards and cost behind them.
type ReviewData struct {
	Now                 time.Time
	Pool, Spec          string
	From, To            string // the form's dates, YYYY-MM-DD, To included
	Project             string
	Projects            []string
	TwoWeeks, LastMonth [2]string // the presets' from and to
	// Error is a problem with the form, in the page's language; the review is absent then.
	Error  string
	Review *ReviewView
}

// ReviewView is the review as the page shows it, times in the billing time zone.
type ReviewView struct {
	Verdicts []VerdictView
	// Chart is the machines up and the cards asked (in machines) over the period [From, To),
	// drawn as the pools page draws a pool's size (poolChart).
	Chart                         PoolView
	From, To                      time.Time
	CatchS                        int64
	Tasks, Waited                 int
	MeanWaitS, P95WaitS, MaxWaitS int64
	Peaks                         []PeakView
	KeptS                         int64
	KeptMost, MinNodes, MaxNodes  int
	Troughs                       []SpanView
	Drains                        []SpanView
	ProvisionedS, HeldS, IdleS    int64
	UnheldS, ReclaimedS           int64
	Reclaims                      int
	RateFen, ElasticFen, FixedFen int64
	SavedFen                      int64
	FixedNodes, Replayed          int
	FixedMeanWaitS, FixedP95WaitS int64
	FixedMaxWaitS                 int64
	// CSV and XLSX are the downloads of the same review.
	CSV, XLSX string
	// Send is the box that messages the verdicts to the leads; nil when the viewer may not.
	Send *ReviewSend
}

// ReviewSend is the box that messages a review's verdicts to the leads of its projects:
// before, the form posting to URL; once Done, how many leads were told for the first time
// (0: the same review went out today already) and whether a chat channel failed.
type ReviewSend struct {
	URL        string
	Done       bool
	Told       int
	ChatFailed bool
}

// VerdictView is one question's answer, in words.
type VerdictView struct {
	Question string
	OK       bool
	Text     string
}

// PeakView is one peak.
type PeakView struct {
	From, To      time.Time
	ShortGPUs     int
	Tasks, Waited int
	MaxWaitS      int64
	Grew, AtMax   bool
	Absorbed      bool
	Reasons       []ReasonView
}

// ReasonView is one recorded scale-up: its code and numbers in the page's language.
type ReasonView struct {
	At       time.Time
	From, To int
	Reason   string
	Detail   string
}

// SpanView is a machine's trough or drain; To is zero for a drain whose removal never came.
type SpanView struct {
	Node     string
	From, To time.Time
}
