// Package billing turns the ledger into bills: it classifies held card-seconds from
// allocations and 5-minute rollups (never raw samples), cuts them into months of the billing
// time zone, prices them under each project's plan (pay-as-you-go, reserved package or
// per-task; quota overflow at the quota's overflow rate, else the price list's), and writes
// bills as JSON, CSV and XLSX.
//
// Compute is pure: an Input in, bills out. Load fills an Input from the store (Source): its
// Ledger streams the month's allocations with their GPUs' rollups GPU by GPU as Compute asks,
// and Compute sums them into lines as they come, so neither a month's million allocations nor
// its rollups are ever held whole. ProjectBill, MonthBills and Issue are what handlers call.
//
// Money is integer fen (分), never float. A line's amount is computed once from the line's
// total seconds:
//
//	amount_fen = round_half_up(seconds × rate_fen_per_card_hour / 3600)
//
// and every total is a sum of rounded amounts (see Amount). Hours in downloads are seconds /
// 3600 with six decimals, which still tell whole seconds apart.
//
// Classes of held time (Breakdown) partition it by what the cards did, whatever the task's
// ending: setup + active + serving + low-util + idle + no-data = nominal (held); effective =
// active + serving. An inference service's replica is classed by what its service served
// (serving or idle, models.ServiceServing, as the Models page classes it), any other task by
// its GPUs' readings.
// How a task ended is a column of its own (Line.Ending), and an interrupted task's work since
// its last checkpoint is a figure beside the classes (Wasted). Issued bills are frozen as
// their JSON body with a SHA-256 (Freeze, Frozen) and render to the same bytes every time.
package billing
