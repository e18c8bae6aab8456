package bills

import (
	"time"

	"kashi/views"
)

// BillsData is the bills page: a month's bills of the projects the viewer sees, grouped by
// project tag when projects carry tags. Money is fen, time seconds; handlers fill it.
type BillsData struct {
	// Month is the month shown ("YYYY-MM"); MaxMonth the latest the picker offers.
	Month, MaxMonth string
	TimeZone        string
	// Groups hold the rows; one group with Tag "" when no project carries a tag.
	Groups []BillGroup
	// Total sums every project once.
	Total BillRow
	// AllDownloads is true for finance and admins: downloads of every project's bills.
	AllDownloads bool
	// PoolIdle is provisioned card time no task held (finance and admins only).
	PoolIdle []PoolIdleView
	// Notice says the page opened on another month than the last one that ended, which
	// held no card.
	Notice string
	// Trend is the charts of the cost over the last months.
	Trend CostTrend
	// IssueAll offers finance and admins to issue every unissued bill of the month at once
	// (an ended month only); nil when there is none to issue or the viewer may not.
	IssueAll *IssueOffer
	// Issue reports what "issue all" just did; nil otherwise.
	Issue *IssueReport
}

// IssueOffer is what "issue all" would issue: Projects bills with every price, TotalFen in
// all, and Unpriced more that lack a price and stay unissued.
type IssueOffer struct {
	Projects, Unpriced int
	TotalFen           int64
}

// IssueReport is what "issue all" did: the bills issued (project and total) with their sum,
// and those that could not be.
type IssueReport struct {
	Issued    []BillRow
	TotalFen  int64
	NotIssued []NotIssued
}

// NotIssued is a bill "issue all" left unissued, and why: the specs without a price, else the
// problem in the page's language, else (both empty) another request issued it meanwhile.
type NotIssued struct {
	Project       string
	MissingPrices []string
	Problem       string
}

// BillGroup is the bills of the projects that carry one tag, with their subtotal.
type BillGroup struct {
	Tag      string
	Rows     []BillRow
	Subtotal BillRow
}

// BillRow is one project's bill of the month in the list.
type BillRow struct {
	Project    string
	NominalS   int64
	EffectiveS int64
	IdleS      int64
	TotalFen   int64
	Lines      int
	// Issued is when the bill was issued; nil while it is a preview.
	Issued        *time.Time
	MissingPrices []string
}

// PoolIdleView is one pool's card time in the month that no task held.
type PoolIdleView struct {
	Pool, Spec                 string
	ProvisionedS, HeldS, IdleS int64
	PackageS, OrganisationS    int64
	// UnmanagedS is the unheld time processes of no task used, charged to no one; Nodes
	// names its nodes with their seconds.
	UnmanagedS     int64
	UnmanagedNodes []NodeSeconds
}

// NodeSeconds is a node's share of a figure.
type NodeSeconds struct {
	Node    string
	Seconds int64
}

// BillData is one project's bill of one month: lines per task, the summary items, the idle
// section, and whether it is issued. Times are in the billing time zone.
type BillData struct {
	Project, Month, TimeZone, Mode string
	PeriodStart, PeriodEnd, AsOf   time.Time
	// Lines and Idle are one page of the bill's lines and idle time, LinesPage and IdlePage
	// which; every total is the whole bill's.
	Lines     []BillLine
	LinesPage Page
	Items     []BillItem
	Idle      []BillIdle
	IdlePage  Page
	Package   *BillPackage
	// Bookings are the project's reservation windows in the month (see billing.Booking).
	Bookings []BillBooking
	// Models are the inference services' card time and charge by model (billing.ModelCost).
	Models []BillModel
	// Pipelines are the pipelines' stages' card time and cost (billing.PipelineCost).
	Pipelines                      []PipelineStages
	Held                           BillHeld
	NominalS, EffectiveS, TotalFen int64
	MissingPrices                  []string
	Issued                         *BillIssued
	// CanIssue shows the issue button: finance or an admin, the month over, not issued.
	CanIssue bool
	// MonthOpen is true while the month runs: the bill is a preview that still grows.
	MonthOpen bool
	// Notice and Error come back from the issue form.
	Notice, Error string
	// CanAdjust shows the adjustment form: finance or an admin, the bill not issued.
	CanAdjust bool
	// CanSetPrices links a missing price to the prices page's form (admins); others are
	// told who can set it.
	CanSetPrices bool
	// Adjustments are the month's corrections with who made them.
	Adjustments []BillAdjustment
	// Adjust is the adjustment form after a refused submit.
	Adjust AdjustForm
	// PriceVersions are the price versions that priced the lines, one per spec.
	PriceVersions []BillPriceVersion
}

// BillAdjustment is one correction on the bill: a signed amount in fen, why, and who.
type BillAdjustment struct {
	AmountFen     int64
	Reason        string
	CorrectsMonth string
	By            string
	At            time.Time
}

// AdjustForm is the adjustment form's text as typed; Problems are those of a refused submit
// (one of the form as a whole when the bill is issued meanwhile).
type AdjustForm struct {
	Amount, Reason, CorrectsMonth string
	Problems                      views.Problems
}

// AdjustFields are the adjustment form's fields in its order, as the store names them.
var AdjustFields = []string{"amount_fen", "corrects_month", "reason"}

// BillPriceVersion is the price version in force for a spec in the bill's month: the
// project's own (Own) or the default list's, from FromMonth on.
type BillPriceVersion struct {
	Spec                     string
	Own                      bool
	FromMonth                string
	RateFen, OverflowRateFen int64
}

// BillLine is one task's card time of one spec and pricing.
type BillLine struct {
	TaskID int64
	// Ending is how the task ended (finished, failed, reclaimed, released, lost,
	// timed-out, cancelled), "" while it runs.
	Task, Owner, Ending      string
	Spec, Pricing, SizeClass string
	// Region is where the line's cards were; "" for none.
	Region string
	// EstimatedS is the task's estimate, on its first line only (0: none). NominalS is
	// EffectiveS + IdleS + the other classes (LowUtilS, SetupS, NoDataS, RerunS, TrialS).
	NominalS, EffectiveS, IdleS, EstimatedS int64
	LowUtilS, SetupS, NoDataS, RerunS       int64
	TrialS                                  int64
	Units                                   int64
	RateFen, AmountFen                      int64
	Note                                    string
}

// BillItem is a summary line: a spec or overflow subtotal, the package fee, the hours beyond
// the package, a spec's unused booked hours, or an adjustment (Kind as in billing: spec,
// overflow, package-fee, package-beyond, booking-unused, adjustment).
type BillItem struct {
	Kind, Spec                  string
	NominalS, EffectiveS, IdleS int64
	RateFen, AmountFen          int64
	// Pct is the share of the rate charged for unused booked hours (kind booking-unused).
	Pct  int
	Note string
}

// BillBooking is one reservation window on the bill: its cards, its time in the billing
// zone, its booked, used and unused card-seconds and the share of the rate the unused ones
// pay.
type BillBooking struct {
	ReservationID           int64
	Spec                    string
	GPUs, ChargePct         int
	StartsAt, EndsAt        time.Time
	BookedS, UsedS, UnusedS int64
}

// BillModel is one inference service's part of the bill: its model tag, card time and
// charge.
type BillModel struct {
	ServiceID                   int64
	Service, Model              string
	NominalS, EffectiveS, IdleS int64
	AmountFen                   int64
}

// PipelineStages is one pipeline's stages on a bill or a weekly report, one computation
// (billing.PipelineCost) for both: card time and cost per stage and spec, beside the same
// card time on the pipeline's highest-priced spec.
type PipelineStages struct {
	ID                                     int64
	Name, Project, TopSpec                 string
	NominalS, AmountFen, TopFen, SavingFen int64
	Stages                                 []StageCost
}

// StageCost is one stage's card time on one spec and what it cost.
type StageCost struct {
	Stage, Spec                            string
	NominalS, AmountFen, TopFen, SavingFen int64
}

// BillIdle is one task's idle card time of one spec (闲置时长).
type BillIdle struct {
	TaskID                    int64
	Task, Owner, Spec         string
	IdleS, LowUtilS, NominalS int64
}

// BillPackage is the reserved package of the month.
type BillPackage struct {
	Spec                              string
	Cards                             int
	FeeFen, OverflowRateFen           int64
	CoveredS, UsedS, BeyondS, UnusedS int64
}

// BillHeld is the classification of every held second; the classes add up to nominal.
// ServingS is inference services' seconds in which they served (effective, like ActiveS);
// RerunS attempts' seconds lost to their rerun since their last checkpoint. WastedS,
// interrupted tasks' work since their last checkpoint and reruns', is apart: it overlaps
// them. RerunFen is what the rerun seconds cost, inside the total; TrialS trials' runs'
// seconds and TrialFen what they cost, inside the total.
type BillHeld struct {
	SetupS, ActiveS, ServingS, LowUtilS, IdleS, NoDataS, RerunS int64
	WastedS, RerunFen                                           int64
	TrialS, TrialFen                                            int64
}

// BillIssued says when and by whom the bill was frozen, and its checksum.
type BillIssued struct {
	At     time.Time
	By     string
	SHA256 string
}

// CostTrend is the bills page's charts: the cost per month stacked by project with the idle
// part as a series of its own, and each project's cost this month against last month. Money
// is fen; handlers do the sums.
type CostTrend struct {
	// Months are the months drawn ("YYYY-MM"), oldest first; the last is ThisMonth.
	Months []string
	// ThisMonth is the current month (still running), LastMonth the one before; months
	// before LastMonth count issued bills only.
	ThisMonth, LastMonth string
	// Series are the largest projects, largest first, then Other (the rest together) when
	// there are more: Fen[i] is the cost in Months[i] less its idle part.
	Series []CostSeries
	// IdleFen[i] is what the projects paid in Months[i] for cards they held idle.
	IdleFen []int64
	// TotalFen[i] is the bills' total of Months[i].
	TotalFen []int64
	// Lines are the projects with a cost this month or last, largest this month first.
	Lines []CostLine
}

// CostSeries is one series of the cost chart.
type CostSeries struct {
	Project string
	// Other is the series of the projects not drawn on their own; Project is "".
	Other bool
	Fen   []int64
}

// CostLine is one project's cost this month so far against last month.
type CostLine struct {
	Project                  string
	NowFen, LastFen, DiffFen int64
}

// Page is one page of a long table: page N of Pages of Size rows each, its rows From to To
// (from 1, both included) of Of.
type Page struct {
	N, Pages, Size, From, To, Of int
}
