package billing

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// headerOwner names a task's owner in the downloads' headers, in the catalogs' words for
// it (提交人, Owner): 负责人 is a project's lead.
const headerOwner = "提交人 Owner"

// CSVHeader names the CSV columns, in Chinese and English.
var CSVHeader = []string{
	"类型 Kind", "项目 Project", "月份 Month", "标签 Tags", "任务ID Task ID", "任务 Task", headerOwner,
	"状态 State", "结束方式 Ending", "卡型 Spec", "地域 Region", "计价 Pricing", "名义卡时 Nominal card-hours",
	"有效卡时 Effective card-hours", "闲置时长 Idle hours", "低利用 Low-util hours", "准备 Setup hours",
	"无数据 No-data hours", "重跑 Rerun hours", "试跑 Trial hours", "浪费 Wasted card-hours", "预估卡时 Estimated card-hours", "产出 Output units",
	"单价(元) Rate (CNY)", "金额(元) Amount (CNY)", "备注 Note",
}

// CSV columns, in CSVHeader's order.
const (
	colKind = iota
	colProject
	colMonth
	colTags
	colTaskID
	colTask
	colOwner
	colState
	colEnding
	colSpec
	colRegion
	colPricing
	colNominal
	colEffective
	colIdle
	colLowUtil
	colSetup
	colNoData
	colRerun
	colTrial
	colWasted
	colEstimated
	colUnits
	colRate
	colAmount
	colNote
	numCols
)

// Row kinds of the CSV's first column.
const (
	csvLine   = "明细 line"
	csvTotal  = "合计 total"
	csvIdle   = "闲置 idle"
	csvUnused = "套餐未用 package-unused"
	csvBooked = "预约 booking"
	csvModel  = "模型 model"
	csvRerun  = "重跑 rerun"
	csvTrial  = "试跑 trial"
	csvStage  = "阶段 stage"
)

// itemLabels are the CSV kinds of summary items.
var itemLabels = map[string]string{
	ItemSpec:          "小计 " + ItemSpec,
	ItemOverflow:      "溢出 " + ItemOverflow,
	ItemPackageFee:    "套餐费 " + ItemPackageFee,
	ItemPackageBeyond: "套餐超出 " + ItemPackageBeyond,
	ItemBookingUnused: "预约未用 " + ItemBookingUnused,
	ItemAdjustment:    "调整 " + ItemAdjustment,
}

// CSVWriter writes bills as CSV for finance: UTF-8 with a byte-order mark so that Excel
// reads the Chinese text, one header row, then for each bill one row per line, the summary
// rows (items, then the total), the idle section (idle tasks, the package's unused hours,
// the bookings), one row per inference service and model (模型 model), and one row of the
// card-hours lost to reruns and their cost (重跑 rerun) when there are any, and one row per
// pipeline stage and spec (阶段 stage, see StageNote). A line's region
// is where its cards were (empty for a pool in no region); summary rows are per spec across
// regions. Model, rerun and stage rows are views of the lines inside the total, so finance does not
// add them to it. Hours have six decimals and money is yuan with two. Each row is built in one reused
// buffer and written through a bufio.Writer, so memory stays flat however many lines a bill
// has.
type CSVWriter struct {
	w   *bufio.Writer
	row []byte
	col int
	err error
}

// NewCSVWriter writes the byte-order mark and the header row.
func NewCSVWriter(w io.Writer) *CSVWriter {
	cw := &CSVWriter{w: bufio.NewWriterSize(w, 64<<10), row: make([]byte, 0, 1024)}
	cw.row = append(cw.row, "\uFEFF"...)
	for _, h := range CSVHeader {
		cw.text(h)
	}
	cw.end()
	return cw
}

// WriteCSV writes bills as one CSV document.
func WriteCSV(w io.Writer, bills []Bill) error {
	cw := NewCSVWriter(w)
	for i := range bills {
		cw.WriteBill(&bills[i])
	}
	return cw.Flush()
}

// WriteLinesCSV writes bills' task lines only, one row each, under the same header: every
// row is a line of kind 明细 line, so the hours and amounts of any rows add up without
// counting a subtotal or total twice (the lines add up to the lines' part of each total:
// package fees, overflow and adjustments are items, in the full CSV).
func WriteLinesCSV(w io.Writer, bills []Bill) error {
	cw := NewCSVWriter(w)
	for i := range bills {
		cw.writeLines(&bills[i])
	}
	return cw.Flush()
}

// WriteBill writes one bill's rows. Errors are kept and returned by Flush.
func (cw *CSVWriter) WriteBill(b *Bill) {
	cw.writeLines(b)
	cw.writeSummary(b)
}

// writeLines writes one row per line of b.
func (cw *CSVWriter) writeLines(b *Bill) {
	for i := range b.Lines {
		l := &b.Lines[i]
		cw.start(csvLine, b)
		cw.int(l.TaskID)
		cw.text(l.Task)
		cw.text(l.Owner)
		cw.text(l.State)
		cw.text(l.Ending)
		cw.text(l.Spec)
		cw.text(l.Region)
		cw.text(l.Pricing)
		cw.hours(l.NominalS, l.EffectiveS, l.Idle, l.LowUtil, l.Setup, l.NoData, l.Rerun, l.Trial, l.WastedS, l.EstimatedS)
		cw.int(l.Units)
		cw.fen(l.RateFen)
		cw.fen(l.AmountFen)
		cw.text(l.Note)
		cw.end()
	}
}

// writeSummary writes the rows of b after its lines: items, the total, and the sections.
func (cw *CSVWriter) writeSummary(b *Bill) {
	for i := range b.Items {
		it := &b.Items[i]
		cw.start(itemLabels[it.Kind], b)
		cw.at(colSpec)
		cw.text(it.Spec)
		if it.Kind != ItemPackageFee && it.Kind != ItemAdjustment {
			cw.at(colNominal)
			cw.hours(it.NominalS, it.EffectiveS, it.IdleS)
		}
		cw.at(colRate)
		if it.RateFen != 0 {
			cw.fen(it.RateFen)
		}
		cw.at(colAmount)
		cw.fen(it.AmountFen)
		cw.text(it.Note)
		cw.end()
	}
	cw.start(csvTotal, b)
	cw.at(colPricing)
	cw.text(b.Mode)
	cw.hours(b.NominalS, b.EffectiveS, b.Held.Idle, b.Held.LowUtil, b.Held.Setup, b.Held.NoData, b.Held.Rerun, b.Held.Trial, b.WastedS)
	cw.at(colAmount)
	cw.fen(b.TotalFen)
	cw.field()
	cw.row = appendStatus(cw.row, b)
	cw.end()
	for i := range b.Idle {
		d := &b.Idle[i]
		cw.start(csvIdle, b)
		cw.int(d.TaskID)
		cw.text(d.Task)
		cw.text(d.Owner)
		cw.at(colSpec)
		cw.text(d.Spec)
		cw.at(colNominal)
		cw.hours(d.NominalS)
		cw.at(colIdle)
		cw.hours(d.IdleS, d.LowUtilS)
		cw.end()
	}
	if p := b.Package; p != nil && p.UnusedS > 0 {
		cw.start(csvUnused, b)
		cw.at(colSpec)
		cw.text(p.Spec)
		cw.at(colPricing)
		cw.text(PricingPackage)
		cw.hours(p.CoveredS)
		cw.at(colIdle)
		cw.hours(p.UnusedS)
		cw.at(colNote)
		cw.field()
		cw.row = strconv.AppendInt(cw.row, int64(p.Cards), 10)
		cw.row = append(cw.row, " cards"...)
		cw.end()
	}
	for i := range b.Bookings {
		k := &b.Bookings[i]
		cw.start(csvBooked, b)
		cw.int(k.ReservationID)
		cw.at(colSpec)
		cw.text(k.Spec)
		cw.at(colPricing)
		cw.text(ItemBookingUnused)
		cw.hours(k.BookedS, k.UsedS, k.UnusedS)
		cw.at(colNote)
		cw.text(BookingNote(k))
		cw.end()
	}
	for i := range b.Models {
		m := &b.Models[i]
		cw.start(csvModel, b)
		cw.int(m.ServiceID)
		cw.text(m.Service)
		cw.at(colNominal)
		cw.hours(m.NominalS, m.EffectiveS, m.IdleS)
		cw.at(colAmount)
		cw.fen(m.AmountFen)
		cw.text("model " + m.Model + "; inside the total")
		cw.end()
	}
	if b.Held.Rerun > 0 {
		cw.start(csvRerun, b)
		cw.at(colRerun)
		cw.hours(b.Held.Rerun)
		cw.at(colAmount)
		cw.fen(b.RerunFen)
		cw.text(RerunNote)
		cw.end()
	}
	if b.Held.Trial > 0 {
		cw.start(csvTrial, b)
		cw.at(colTrial)
		cw.hours(b.Held.Trial)
		cw.at(colAmount)
		cw.fen(b.TrialFen)
		cw.text(TrialNote)
		cw.end()
	}
	for i := range b.Pipelines {
		pc := &b.Pipelines[i]
		for j := range pc.Stages {
			st := &pc.Stages[j]
			cw.start(csvStage, b)
			cw.int(pc.PipelineID)
			cw.text(pc.Pipeline + "/" + st.Stage)
			cw.at(colSpec)
			cw.text(st.Spec)
			cw.at(colNominal)
			cw.hours(st.NominalS, st.EffectiveS)
			cw.at(colAmount)
			cw.fen(st.AmountFen)
			cw.text(StageNote(pc, st))
			cw.end()
		}
	}
}

// StageNote is the note of a pipeline stage's row in the downloads: what the same card
// time would have cost on the pipeline's highest-priced spec, and that the row is inside
// the total.
func StageNote(pc *PipelineCost, st *StageCost) string {
	return fmt.Sprintf("pipeline stage; on %s (%s/card-hour) %s, saving %s; inside the total", pc.TopSpec,
		FormatFen(pc.TopRateFen), FormatFen(st.TopSpecFen), FormatFen(st.SavingFen))
}

// RerunNote is the note of a bill's rerun row in the downloads: what its hours and amount
// are.
const RerunNote = "card-hours lost to reruns (since each rerun attempt's last checkpoint); inside the total"

// TrialNote is the note of a bill's trial row in the downloads.
const TrialNote = "card-hours of trials' runs (tasks tried at small sizes before their full run); inside the total"

// BookingNote describes a reservation window for downloads: "8 cards 2026-12-04T01:00:00Z –
// 2026-12-04T10:00:00Z; unused at 50 % of the rate". A CSV booking row's hours columns hold
// its booked, used and unused card-hours (nominal, effective, idle); the Idle sheet's its
// unused and booked.
func BookingNote(k *Booking) string {
	return fmt.Sprintf("%d cards %s – %s; unused at %d %% of the rate", k.GPUs,
		k.StartsAt.Format(time.RFC3339), k.EndsAt.Format(time.RFC3339), k.ChargePct)
}

// Flush writes what is buffered and returns the first error.
func (cw *CSVWriter) Flush() error {
	if cw.err == nil {
		cw.err = cw.w.Flush()
	}
	if cw.err != nil {
		return fmt.Errorf("billing: write csv: %w", cw.err)
	}
	return nil
}

// start begins a row with its kind, project, month and the project's tags.
func (cw *CSVWriter) start(kind string, b *Bill) {
	cw.row, cw.col = cw.row[:0], 0
	cw.text(kind)
	cw.text(b.Project)
	cw.text(b.Month)
	cw.text(TagsText(b.Tags))
}

// TagsText is a project's tags as one cell: "cv; paper-2026".
func TagsText(tags []string) string { return strings.Join(tags, "; ") }

// field starts the next field: a separator unless it is the row's first.
func (cw *CSVWriter) field() {
	if cw.col > 0 {
		cw.row = append(cw.row, ',')
	}
	cw.col++
}

// at leaves the fields before column c empty.
func (cw *CSVWriter) at(c int) {
	for cw.col < c {
		cw.field()
	}
}

// text appends a text field.
func (cw *CSVWriter) text(s string) {
	cw.field()
	cw.row = appendText(cw.row, s)
}

// int appends an integer field.
func (cw *CSVWriter) int(v int64) {
	cw.field()
	cw.row = strconv.AppendInt(cw.row, v, 10)
}

// fen appends an amount in yuan.
func (cw *CSVWriter) fen(f int64) {
	cw.field()
	cw.row = AppendFen(cw.row, f)
}

// hours appends one field per value, seconds as hours.
func (cw *CSVWriter) hours(secs ...int64) {
	for _, s := range secs {
		cw.field()
		cw.row = AppendHours(cw.row, s)
	}
}

// end pads the row to every column, finishes and writes it.
func (cw *CSVWriter) end() {
	cw.at(numCols)
	cw.row = append(cw.row, '\r', '\n')
	if cw.err == nil {
		_, cw.err = cw.w.Write(cw.row)
	}
	cw.row, cw.col = cw.row[:0], 0
}

// appendStatus notes whether the bill is issued, and what it lacks.
func appendStatus(b []byte, bill *Bill) []byte {
	var s []byte
	if bill.Issued != nil {
		s = append(s, "issued "...)
		s = bill.Issued.At.AppendFormat(s, time.RFC3339)
		s = append(s, " by "...)
		s = append(s, bill.Issued.By...)
		s = append(s, "; sha256 "...)
		s = append(s, bill.Issued.SHA256...)
	} else {
		s = append(s, "not issued; as of "...)
		s = bill.AsOf.AppendFormat(s, time.RFC3339)
	}
	if len(bill.MissingPrices) > 0 {
		s = append(s, "; no price for "...)
		s = append(s, strings.Join(bill.MissingPrices, " ")...)
	}
	return appendText(b, string(s))
}

// appendText appends a CSV field: quoted when it holds a comma, quote or line break, and
// prefixed with ' when it starts like a spreadsheet formula, so that a task named
// "=cmd()" stays text in Excel.
func appendText(b []byte, s string) []byte {
	formula := s != "" && strings.IndexByte("=+-@\t\r", s[0]) >= 0
	quote := strings.ContainsAny(s, ",\"\r\n")
	if quote {
		b = append(b, '"')
	}
	if formula {
		b = append(b, '\'')
	}
	if !quote {
		return append(b, s...)
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}
