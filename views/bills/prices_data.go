package bills

import (
	"time"

	"kashi/views"
)

// PricesData is the prices and plans page (价格与计费方式): every price and billing plan with
// its history, the specs that lack a price, and for admins the forms that set them. Money
// is fen; handlers fill it.
type PricesData struct {
	// Month is the current month in the billing time zone: "in force" means in force now.
	Month    string
	TimeZone string
	// CanEdit shows the forms (admins); finance reads the page only.
	CanEdit bool
	// Specs and Projects fill the forms' pickers.
	Specs, Projects []string
	// Missing lists the specs on the board without a default price this month.
	Missing []string
	Prices  []PriceRow
	Plans   []PlanRow
	// PriceForm and PlanForm hold a refused submit, or the prefilled values.
	PriceForm PriceForm
	PlanForm  PlanForm
	// Notice confirms a change just saved.
	Notice string
}

// PriceRow is one price version: the rates of a spec from a month on, for one project or
// the default list (Project "").
type PriceRow struct {
	Project, Spec, FromMonth string
	RateFen, OverflowRateFen int64
	// InForce marks the version that prices the current month.
	InForce   bool
	UpdatedAt time.Time
	// ChangeID is the row's id when it changes an earlier price of its project and spec
	// (its page, views.PriceChangeURL), else 0; Measured: the list loads what it changed.
	ChangeID int64
	Measured bool
}

// PlanRow is one billing plan version of a project.
type PlanRow struct {
	Project, FromMonth, Mode    string
	PackageSpec                 string
	PackageCards                int
	PackageFeeFen, UnitPriceFen int64
	// SizeClasses is the per-task price list by size.
	SizeClasses []SizeClassView
	InForce     bool
}

// PriceForm is the price form's text as typed; Problems are those of a refused submit.
type PriceForm struct {
	Project, Spec, FromMonth, Rate, OverflowRate string
	Problems                                     views.Problems
}

// PriceFields are the price form's fields in its order, as the store names them.
var PriceFields = []string{"spec", "project", "from_month", "rate_fen", "overflow_rate_fen"}

// PlanForm is the billing plan form's text as typed; Problems are those of a refused submit.
type PlanForm struct {
	Project, FromMonth, Mode, PackageSpec, PackageCards, PackageFee, UnitPrice, SizeClasses string
	Problems                                                                                views.Problems
}

// PlanFields are the plan form's fields in its order, as the store names them.
var PlanFields = []string{"project", "from_month", "mode", "package_spec", "package_cards", "package_fee_fen", "unit_price_fen", "size_classes"}

// SizeClassView is one per-task size class: tasks up to MaxCardHours (0: no limit) cost
// PriceFen.
type SizeClassView struct {
	Name         string
	MaxCardHours int64
	PriceFen     int64
}
