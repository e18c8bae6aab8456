package api

import (
	"encoding/json"
	"time"
)

// BillsIssued answers the issue of every project's bill of a month: the bills issued now,
// each on its own, and those that could not be, with why. Bills issued before are in
// neither list.
type BillsIssued struct {
	Month string `json:"month"`
	// Issued are the bills issued by this call, by project name; TotalFen sums them.
	Issued   []BillIssued `json:"issued"`
	TotalFen int64        `json:"total_fen"`
	// NotIssued are the bills left unissued, such as one with a spec without a price.
	NotIssued []BillNotIssued `json:"not_issued"`
}

// BillIssued is one bill issued: its project, its total in fen and its checksum.
type BillIssued struct {
	Project  string `json:"project"`
	TotalFen int64  `json:"total_fen"`
	SHA256   string `json:"sha256"`
}

// BillNotIssued is one bill left unissued: its project and why, as an error body says it
// (Field "prices" with MissingPrices naming the specs without a price, or none when another
// request issued it first).
type BillNotIssued struct {
	Project       string   `json:"project"`
	Error         string   `json:"error"`
	Field         string   `json:"field,omitempty"`
	MissingPrices []string `json:"missing_prices,omitempty"`
}

// Adjustment is a signed correction in fen on a project's bill of a month, as POST
// /api/v1/bills/{project}/{month}/adjustments answers it (NewAdjustment its body).
type Adjustment struct {
	ID            int64  `json:"id"`
	Project       string `json:"project"`
	Month         string `json:"month"`
	AmountFen     int64  `json:"amount_fen"`
	Reason        string `json:"reason"`
	CorrectsMonth string `json:"corrects_month,omitempty"`
	CreatedBy     string `json:"created_by"`
	// CreatedAt is when it was added.
	CreatedAt time.Time `json:"created_at"`
}

// NewAdjustment is the body of POST /api/v1/bills/{project}/{month}/adjustments.
type NewAdjustment struct {
	AmountFen     int64  `json:"amount_fen"`
	Reason        string `json:"reason"`
	CorrectsMonth string `json:"corrects_month"`
}

// Price is a spec's pay-as-you-go and overflow rates from a month on, for one project or the
// default list: the body of POST /api/v1/prices and its answer.
type Price struct {
	// Project is a project's name, or "" for the default price list.
	Project         string `json:"project"`
	Spec            string `json:"spec"`
	FromMonth       string `json:"from_month"`
	RateFen         int64  `json:"rate_fen"`
	OverflowRateFen int64  `json:"overflow_rate_fen"`
}

// Plan is how a project is billed from a month on: the body of POST
// /api/v1/projects/{id}/plan and its answer (mode "package" answers as "reserved").
// SizeClasses is a list of {name, max_card_hours, price_fen} (mode per-task).
type Plan struct {
	FromMonth     string          `json:"from_month"`
	Mode          string          `json:"mode"`
	PackageSpec   string          `json:"package_spec,omitempty"`
	PackageCards  int             `json:"package_cards,omitempty"`
	PackageFeeFen int64           `json:"package_fee_fen,omitempty"`
	UnitPriceFen  int64           `json:"unit_price_fen,omitempty"`
	SizeClasses   json.RawMessage `json:"size_classes,omitempty"`
}

// MonthBills is every project's bill of a month (GET /api/v1/bills/{month} as JSON), the
// pools' idle hours and the bills' total in fen. Bills and PoolIdle are as the billing
// package writes them (the Bill and PoolIdle schemas): an issued bill is sent as frozen.
type MonthBills struct {
	Month    string          `json:"month"`
	Bills    json.RawMessage `json:"bills"`
	PoolIdle json.RawMessage `json:"pool_idle"`
	TotalFen int64           `json:"total_fen"`
}

// BillingSettings is the billing zone and the metering thresholds: the answer of GET and
// POST /api/v1/billing/settings and the body of the POST.
type BillingSettings struct {
	TimeZone string `json:"time_zone"`
	// IdleUtilPct and ActiveUtilPct classify readings; 0 means the default (10 and 40).
	IdleUtilPct   int `json:"idle_util_pct"`
	ActiveUtilPct int `json:"active_util_pct"`
}
