package billing

import "time"

// How a line is priced.
const (
	// PricingCardHour is the spec's pay-as-you-go rate per card-hour.
	PricingCardHour = "card-hour"
	// PricingOverflow is quota overflow at the spec's overflow rate per card-hour.
	PricingOverflow = "overflow"
	// PricingPackage is covered by the reserved package: rate and amount 0.
	PricingPackage = "package"
	// PricingUnit is the per-task price per output unit.
	PricingUnit = "unit"
	// PricingTask is the per-task price of the task's size class.
	PricingTask = "task"
)

// Summary item kinds; a bill's items add up to its total.
const (
	// ItemSpec is the subtotal of one spec's lines, overflow excluded.
	ItemSpec = "spec"
	// ItemOverflow is the subtotal of one spec's quota overflow lines.
	ItemOverflow = "overflow"
	// ItemPackageFee is the reserved package's monthly fee.
	ItemPackageFee = "package-fee"
	// ItemPackageBeyond is the package spec's hours beyond the package, at the overflow rate.
	ItemPackageBeyond = "package-beyond"
	// ItemBookingUnused is one spec's booked card-hours the project did not use, at Pct
	// percent of the spec's card-hour rate (see Booking).
	ItemBookingUnused = "booking-unused"
	// ItemAdjustment is one adjustment (a correction of an earlier bill).
	ItemAdjustment = "adjustment"
)

// FrozenFormat is the version of the body Freeze writes. Format 2 carries everything the
// bill's page shows (PriceVersions and Adjustments beside the project's name and tags), so
// that an issued bill reads from its body alone; bodies without a format (1) carry neither.
const FrozenFormat = 2

// Bill is one project's bill for one month. Its JSON is the API's shape and, frozen, the
// issued bill's stored body: money in integer fen (*_fen), time in integer seconds (*_s).
// The project's name and tags are as of the bill: issued, as of its issue.
type Bill struct {
	// Format is the frozen body's version (FrozenFormat) on an issued bill; absent on a
	// bill computed now and on bills frozen before versions.
	Format    int      `json:"format,omitempty"`
	ProjectID int64    `json:"project_id"`
	Project   string   `json:"project"`
	Tags      []string `json:"tags"`
	Month     string   `json:"month"`
	TimeZone  string   `json:"time_zone"`
	// IdleUtilPct and ActiveUtilPct are the metering thresholds the bill was computed under
	// (idle under the first, active from the second); frozen with an issued bill.
	IdleUtilPct   int       `json:"idle_util_pct"`
	ActiveUtilPct int       `json:"active_util_pct"`
	PeriodStart   time.Time `json:"period_start"`
	PeriodEnd     time.Time `json:"period_end"`
	// AsOf is when open allocations were cut: the period end, or earlier for a month that
	// has not ended.
	AsOf time.Time `json:"as_of"`
	Mode string    `json:"mode"`
	// Lines are one per task, spec and pricing, by task id.
	Lines []Line `json:"lines"`
	// Items are the subtotals and charges; their amounts add up to TotalFen.
	Items []Item `json:"items"`
	// Idle is the idle hours section (闲置时长): tasks by idle seconds, most first.
	Idle    []IdleLine `json:"idle"`
	Package *Package   `json:"package,omitempty"`
	// Bookings are the project's reservation windows in the month with their used and
	// unused card-hours; absent without any, so bills before reservations keep their shape.
	Bookings []Booking `json:"bookings,omitempty"`
	// Models are the inference services' lines added up per service and model tag (inside
	// the total); absent without any, so bills before services keep their shape.
	Models []ModelCost `json:"models,omitempty"`
	// Pipelines are the pipelines' stage tasks' lines added up per stage and spec, beside
	// what they would have cost on the pipeline's highest-priced spec (inside the total);
	// absent without any, so bills before pipelines keep their shape.
	Pipelines []PipelineCost `json:"pipelines,omitempty"`
	// Held is the classification of every held second; Held.Nominal() = NominalS.
	Held       Breakdown `json:"held"`
	NominalS   int64     `json:"nominal_s"`
	EffectiveS int64     `json:"effective_s"`
	// WastedS is the lines' wasted card-seconds (Line.WastedS).
	WastedS int64 `json:"wasted_s"`
	// RerunFen is what the card time lost to reruns cost (Held.Rerun priced as its lines:
	// RerunFen), inside the total; absent without reruns, so bills before them keep their shape.
	RerunFen int64 `json:"rerun_fen,omitempty"`
	// TrialFen is what the trials' runs cost (Held.Trial priced as its lines: TrialFen),
	// inside the total; absent without trials.
	TrialFen int64 `json:"trial_fen,omitempty"`
	TotalFen int64 `json:"total_fen"`
	// MissingPrices names specs used without a price; such a bill cannot be issued.
	MissingPrices []string `json:"missing_prices"`
	// AdjustmentIDs are the adjustments included; Adjustments are the same with who made
	// them and when (absent on bills frozen before FrozenFormat 2).
	AdjustmentIDs []int64            `json:"adjustment_ids"`
	Adjustments   []AdjustmentRecord `json:"adjustments,omitempty"`
	// PriceVersions are the price-list versions that priced the lines' specs (absent on bills
	// frozen before FrozenFormat 2).
	PriceVersions []PriceVersion `json:"price_versions,omitempty"`
	// Issued is set on a bill read back from its frozen form; it is not part of the body.
	Issued *Issued `json:"issued,omitempty"`
}

// Issued says when and by whom a bill was frozen, and the SHA-256 of its body.
type Issued struct {
	At     time.Time `json:"at"`
	By     string    `json:"by"`
	SHA256 string    `json:"sha256"`
}

// Line is one task's card time of one spec and one pricing in the month.
type Line struct {
	TaskID int64  `json:"task_id"`
	Task   string `json:"task"`
	Owner  string `json:"owner"`
	State  string `json:"state"`
	// Ending is how the task ended (models.TaskEnding: finished, failed, reclaimed,
	// released, lost, timed-out, cancelled); "" while it runs. It does not change the
	// classes: a reclaimed task's idle seconds are idle.
	Ending string `json:"ending"`
	Spec   string `json:"spec"`
	// Region is where the cards were (their pool's region); absent for none.
	Region  string `json:"region,omitempty"`
	Pricing string `json:"pricing"`
	Breakdown
	NominalS   int64 `json:"nominal_s"`
	EffectiveS int64 `json:"effective_s"`
	// WastedS is the card-seconds of an interrupted task's work lost (see Wasted): after
	// its last checkpoint, or all of them without one. It overlaps the classes.
	WastedS int64 `json:"wasted_s"`
	// EstimatedS is the task's whole estimate (est_gpu_hours) in card-seconds, on the
	// task's first line of the bill only, so that lines add up; 0 when none was given.
	EstimatedS int64 `json:"estimated_s"`
	// Units is the output the task reported (per-task pricing).
	Units     int64  `json:"output_units"`
	SizeClass string `json:"size_class,omitempty"`
	// RateFen is per card-hour, per unit or per task, as Pricing says.
	RateFen   int64  `json:"rate_fen"`
	AmountFen int64  `json:"amount_fen"`
	Note      string `json:"note,omitempty"`
}

// AdjustmentRecord is one adjustment on a bill, with who made it and when.
type AdjustmentRecord struct {
	ID        int64  `json:"id"`
	AmountFen int64  `json:"amount_fen"`
	Reason    string `json:"reason"`
	// CorrectsMonth is the earlier month it corrects, if it says.
	CorrectsMonth string    `json:"corrects_month,omitempty"`
	By            string    `json:"by"`
	At            time.Time `json:"at"`
}

// PriceVersion is the price-list version in force in the bill's month for one spec its
// lines use: the project's own (Own), else the default list's, from FromMonth.
type PriceVersion struct {
	Spec            string `json:"spec"`
	Own             bool   `json:"own"`
	FromMonth       string `json:"from_month"`
	RateFen         int64  `json:"rate_fen"`
	OverflowRateFen int64  `json:"overflow_rate_fen"`
}

// Item is one summary line: a spec subtotal, an overflow subtotal, the package fee, the
// hours beyond the package, a spec's unused booked hours, or an adjustment.
type Item struct {
	Kind       string `json:"kind"`
	Spec       string `json:"spec,omitempty"`
	NominalS   int64  `json:"nominal_s"`
	EffectiveS int64  `json:"effective_s"`
	IdleS      int64  `json:"idle_s"`
	RateFen    int64  `json:"rate_fen"`
	// Pct is the share of RateFen charged, for unused booked hours (ItemBookingUnused).
	Pct       int    `json:"pct,omitempty"`
	AmountFen int64  `json:"amount_fen"`
	Note      string `json:"note,omitempty"`
}

// IdleLine is one task's idle seconds of one spec.
type IdleLine struct {
	TaskID   int64  `json:"task_id"`
	Task     string `json:"task"`
	Owner    string `json:"owner"`
	Spec     string `json:"spec"`
	IdleS    int64  `json:"idle_s"`
	LowUtilS int64  `json:"low_util_s"`
	NominalS int64  `json:"nominal_s"`
}

// Package is a reserved package in the month: CoveredS = Cards × the month's seconds;
// UsedS of the spec's (non-overflow) card time, BeyondS over the cover. UnusedS is the
// cover not used so far: Cards × the seconds from the month's start to the bill's AsOf, less
// UsedS, so a month still running does not count its future as unused; once it ends it is
// CoveredS − UsedS.
type Package struct {
	Spec            string `json:"spec"`
	Cards           int    `json:"cards"`
	FeeFen          int64  `json:"fee_fen"`
	OverflowRateFen int64  `json:"overflow_rate_fen"`
	CoveredS        int64  `json:"covered_s"`
	UsedS           int64  `json:"used_s"`
	BeyondS         int64  `json:"beyond_s"`
	UnusedS         int64  `json:"unused_s"`
}
