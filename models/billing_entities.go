package models

import "time"

// DefaultBillingTimeZone is the zone months are cut in when the settings name none.
const DefaultBillingTimeZone = "Asia/Shanghai"

// BillingSettings is the one row of organisation-wide billing settings.
type BillingSettings struct {
	ID int64 `gorm:"primaryKey;autoIncrement:false"`
	// TimeZone is an IANA zone name; months begin at local midnight of the 1st there.
	TimeZone string
	// IdleUtilPct and ActiveUtilPct classify readings (idle under the first, active from the
	// second, low between); zero means the defaults (DefaultThresholds).
	IdleUtilPct   int
	ActiveUtilPct int
	UpdatedAt     time.Time
}

// Metering is the thresholds the settings hold, the defaults where unset.
func (bs BillingSettings) Metering() Thresholds {
	t := DefaultThresholds
	if bs.IdleUtilPct > 0 {
		t.IdleUtilPct = bs.IdleUtilPct
	}
	if bs.ActiveUtilPct > 0 {
		t.ActiveUtilPct = bs.ActiveUtilPct
	}
	return t
}

// TableName is the settings table.
func (BillingSettings) TableName() string { return "billing_settings" }

// Price is the rate of one spec from FromMonth ("YYYY-MM") on, until a later row of the same
// project and spec. ProjectID 0 is the default price list; a project's own row overrides it.
type Price struct {
	ID        int64
	ProjectID int64
	Spec      string
	FromMonth string
	// RateFen is fen (分) per card-hour, pay-as-you-go.
	RateFen int64
	// OverflowRateFen is fen per card-hour for quota overflow and hours beyond a package.
	OverflowRateFen int64
	UpdatedAt       time.Time
}

// Billing modes (三种口径).
const (
	// BillPayAsYouGo charges each card-hour at the spec's rate.
	BillPayAsYouGo = "payg"
	// BillReserved charges a fixed monthly fee for N cards of a spec; hours beyond N × the
	// month's hours are charged at the overflow rate.
	BillReserved = "reserved"
	// BillPerTask charges per output unit a task reported, or per task by size class.
	BillPerTask = "per-task"
)

// SizeClass prices a task by its nominal card-hours: the first class whose MaxCardHours is
// at least the task's (0 means no limit) gives the price.
type SizeClass struct {
	Name         string `json:"name"`
	MaxCardHours int64  `json:"max_card_hours"`
	PriceFen     int64  `json:"price_fen"`
}

// BillingPlan is how a project is billed from FromMonth on, until a later plan. A project
// without a plan pays as it goes.
type BillingPlan struct {
	ID        int64
	ProjectID int64
	FromMonth string
	Mode      string
	// PackageSpec, PackageCards and PackageFeeFen describe a reserved package.
	PackageSpec   string
	PackageCards  int
	PackageFeeFen int64
	// UnitPriceFen is the per-task price per output unit; used when SizeClasses is empty.
	UnitPriceFen int64
	// SizeClasses is the per-task price list by size, JSON-encoded []SizeClass.
	SizeClasses string
	UpdatedAt   time.Time
}

// IssuedBill is a frozen monthly bill: Body is the bill as the billing package encoded it
// and SHA256 its hex checksum. It is never edited; corrections are adjustments on a later
// month.
type IssuedBill struct {
	ID          int64
	ProjectID   int64
	Month       string
	TimeZone    string
	PeriodStart time.Time
	PeriodEnd   time.Time
	NominalS    int64 `gorm:"column:nominal_s"`
	EffectiveS  int64 `gorm:"column:effective_s"`
	TotalFen    int64
	Body        string
	SHA256      string `gorm:"column:sha256"`
	IssuedAt    time.Time
	IssuedBy    string
	// AdjustmentIDs are the adjustments the body includes; IssueBill refuses the bill when
	// the month's adjustments changed meanwhile. Not stored.
	AdjustmentIDs []int64 `gorm:"-"`
}

// Adjustment is a signed correction in fen that lands on Month's bill of a project, e.g. a
// refund for an error found in an issued bill (CorrectsMonth).
type Adjustment struct {
	ID            int64
	ProjectID     int64
	Month         string
	AmountFen     int64
	Reason        string
	CorrectsMonth string
	CreatedBy     string
	CreatedAt     time.Time
}
