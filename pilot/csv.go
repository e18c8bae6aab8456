package pilot

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"time"

	"kashi/billing"
)

// header is the columns of the review's CSV and workbook.
var header = []string{"kind", "name", "from", "to", "value", "detail"}

// WriteCSV writes r as CSV (rows), times RFC 3339 in loc.
func WriteCSV(w io.Writer, r Review, loc *time.Location) error {
	cw := csv.NewWriter(w)
	cw.Write(header)
	rows(r, loc, func(f ...any) {
		out := make([]string, len(f))
		for i, v := range f {
			switch x := v.(type) {
			case string:
				out[i] = x
			case int64:
				out[i] = strconv.FormatInt(x, 10)
			case billing.HoursCell:
				out[i] = billing.FormatHours(int64(x))
			case billing.FenCell:
				out[i] = billing.FormatFen(int64(x))
			}
		}
		cw.Write(out)
	})
	cw.Flush()
	return cw.Error()
}

// XLSXTable is the review workbook's table name.
const XLSXTable = "Review"

// WriteXLSX writes r as a workbook of one sheet named sheet, with the CSV's columns and rows
// (rows), card-hours, waits and money as numbers in their formats, written as the bills'
// workbooks are (billing.WriteTableXLSX), made at r.To.
func WriteXLSX(w io.Writer, r Review, loc *time.Location, sheet string) error {
	if err := billing.WriteTableXLSX(w, sheet, XLSXTable, header, r.To, func(add func(...any)) { rows(r, loc, add) }); err != nil {
		return fmt.Errorf("pilot: write xlsx: %w", err)
	}
	return nil
}

// rows passes r to row, one row a fact: kind, name, from, to, value, detail. Kinds:
// verdict (name the question, value yes or no, detail its numbers), figure (name the
// figure, value card-hours (billing.HoursCell), money (billing.FenCell) or a whole number
// (waits in seconds)), peak (name the cards short at most, value absorbed, late, at-max or
// not-grown, detail the tasks, waits and the scaling loop's reasons), trough and drain
// (name the machine, value seconds). Times are RFC 3339 in loc.
func rows(r Review, loc *time.Location, row func(...any)) {
	ts := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.In(loc).Format(time.RFC3339)
	}
	row("pool", r.Pool, ts(r.From), ts(r.To), r.Spec, r.Project)
	yes := func(ok bool) string {
		if ok {
			return "yes"
		}
		return "no"
	}
	for _, v := range r.Verdicts {
		var d string
		switch v.Question {
		case QPeaks:
			d = strconv.Itoa(v.N) + "/" + strconv.Itoa(v.Of)
		case QTroughs:
			d = "machines=" + strconv.Itoa(v.N) + " hours_a_day=" + strconv.FormatFloat(v.Hours, 'f', 1, 64)
		case QIdle:
			d = "idle_pct=" + strconv.FormatFloat(v.Pct, 'f', 1, 64) + " reclaims=" + strconv.Itoa(v.N)
		case QCost:
			d = "saved_yuan=" + billing.FormatFen(v.Fen)
		}
		row("verdict", v.Question, "", "", yes(v.OK), d)
	}
	hours := func(name string, s int64) { row("figure", name, ts(r.From), ts(r.To), billing.HoursCell(s), "") }
	num := func(name string, n int64) { row("figure", name, ts(r.From), ts(r.To), n, "") }
	yuan := func(name string, fen int64) { row("figure", name, ts(r.From), ts(r.To), billing.FenCell(fen), "") }
	hours("provisioned_card_hours", r.ProvisionedS)
	hours("held_card_hours", r.HeldS)
	hours("held_idle_card_hours", r.IdleS)
	hours("unheld_card_hours", r.UnheldS)
	num("reclaimed_tasks", int64(r.Reclaims))
	hours("reclaimed_card_hours", r.ReclaimedS)
	num("tasks", int64(r.Tasks))
	num("tasks_waited", int64(r.Waited))
	num("mean_wait_s", r.MeanWaitS)
	num("p95_wait_s", r.P95WaitS)
	num("max_wait_s", r.MaxWaitS)
	hours("kept_machine_hours", r.KeptS)
	num("peak_machines", int64(r.PeakNodes))
	yuan("elastic_yuan", r.Cost.ElasticFen)
	yuan("fixed_yuan", r.Cost.FixedFen)
	yuan("saved_yuan", r.Cost.SavedFen)
	num("fixed_mean_wait_s", r.Cost.FixedMeanWaitS)
	num("fixed_p95_wait_s", r.Cost.FixedP95WaitS)
	num("fixed_max_wait_s", r.Cost.FixedMaxWaitS)
	for _, p := range r.Peaks {
		state := "absorbed"
		switch {
		case p.Absorbed:
		case p.AtMax:
			state = "at-max"
		case p.Grew:
			state = "late"
		default:
			state = "not-grown"
		}
		d := "tasks=" + strconv.Itoa(p.Tasks) + " waited=" + strconv.Itoa(p.Waited) + " max_wait_s=" + strconv.FormatInt(p.MaxWaitS, 10)
		for _, e := range p.Reasons {
			d += " " + e.Reason + "@" + ts(e.At)
		}
		row("peak", strconv.Itoa(p.ShortGPUs), ts(p.From), ts(p.To), state, d)
	}
	for _, t := range r.Troughs {
		row("trough", t.Node, ts(t.From), ts(t.To), int64(t.To.Sub(t.From)/time.Second), "")
	}
	for _, d := range r.Drains {
		var v any = ""
		if !d.To.IsZero() {
			v = int64(d.To.Sub(d.From) / time.Second)
		}
		row("drain", d.Node, ts(d.From), ts(d.To), v, "")
	}
}
