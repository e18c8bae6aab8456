package billing

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/xuri/excelize/v2"
)

// XLSX sheet names in English (EnglishSheets); a download names its sheets in its reader's
// language (SheetNames).
const (
	SheetSummary = "Summary"
	SheetLines   = "Lines"
	SheetIdle    = "Idle"
	SheetModels  = "Models"
	// SheetStages is there only when a bill has pipelines, so that a workbook of bills
	// before pipelines keeps its bytes.
	SheetStages = "Stages"
)

// SheetNames are a bill workbook's sheet names, in the language of the download.
type SheetNames struct {
	Summary, Lines, Idle, Models, Stages string
}

// EnglishSheets are the sheet names of an English download.
var EnglishSheets = SheetNames{Summary: SheetSummary, Lines: SheetLines, Idle: SheetIdle, Models: SheetModels, Stages: SheetStages}

// workbookAuthor is the author and last editor a workbook's properties name.
const workbookAuthor = "Kashi"

// setWorkbookProps sets the workbook's author and its created and modified times to at
// (excelize would write "xuri" and 2006-09-16); a zero at leaves the times unset.
func setWorkbookProps(f *excelize.File, at time.Time) error {
	p := &excelize.DocProperties{Creator: workbookAuthor, LastModifiedBy: workbookAuthor}
	if !at.IsZero() {
		p.Created = at.UTC().Format(time.RFC3339)
		p.Modified = p.Created
	}
	return f.SetDocProps(p)
}

// billsTime is when a workbook of bills was made, as far as its bytes may say: the latest
// issue time when every bill is issued (an issued bill downloads the same bytes every
// time), else the latest moment the bills' figures were read up to (AsOf).
func billsTime(bills []Bill) time.Time {
	var issued, asOf time.Time
	all := len(bills) > 0
	for _, b := range bills {
		if b.Issued != nil && b.Issued.At.After(issued) {
			issued = b.Issued.At
		}
		all = all && b.Issued != nil
		if b.AsOf.After(asOf) {
			asOf = b.AsOf
		}
	}
	if all {
		return issued
	}
	return asOf
}

// Spreadsheet number formats: money in yuan (a CNY currency format), months, hours, shares.
const (
	numFmtMoney = "[$¥-804]#,##0.00"
	numFmtMonth = "yyyy-mm"
	numFmtHours = "#,##0.000"
	numFmtShare = 10 // built-in "0.00%"
)

// Column headers of the sheets.
var (
	summaryHeader = []any{"项目 Project", "月份 Month", "类型 Kind", "卡型 Spec", "名义卡时 Nominal card-hours",
		"有效卡时 Effective card-hours", "闲置时长 Idle hours", "单价(元) Rate (CNY)", "金额(元) Amount (CNY)", "备注 Note",
		"标签 Tags"}
	linesHeader = []any{"项目 Project", "月份 Month", "任务ID Task ID", "任务 Task", headerOwner, "状态 State",
		"结束方式 Ending", "卡型 Spec", "地域 Region", "计价 Pricing", "名义卡时 Nominal card-hours", "有效卡时 Effective card-hours",
		"闲置时长 Idle hours", "低利用 Low-util hours", "准备 Setup hours", "无数据 No-data hours",
		"重跑 Rerun hours", "试跑 Trial hours", "浪费 Wasted card-hours", "预估卡时 Estimated card-hours", "产出 Output units",
		"单价(元) Rate (CNY)", "金额(元) Amount (CNY)", "备注 Note", "标签 Tags"}
	idleHeader = []any{"项目 Project", "月份 Month", "任务ID Task ID", "任务 Task", headerOwner, "卡型 Spec",
		"闲置时长 Idle hours", "低利用 Low-util hours", "名义卡时 Nominal card-hours", "闲置占比 Idle share"}
	modelsHeader = []any{"项目 Project", "月份 Month", "服务ID Service ID", "服务 Service", "模型 Model",
		"名义卡时 Nominal card-hours", "有效卡时 Effective card-hours", "闲置时长 Idle hours", "金额(元) Amount (CNY)",
		"标签 Tags"}
	stagesHeader = []any{"项目 Project", "月份 Month", "流水线ID Pipeline ID", "流水线 Pipeline", "阶段 Stage", "卡型 Spec",
		"名义卡时 Nominal card-hours", "有效卡时 Effective card-hours", "金额(元) Amount (CNY)", "最高规格 Top spec",
		"按最高规格(元) On the top spec (CNY)", "节省(元) Saving (CNY)", "标签 Tags"}
)

// xlsxStyles are the style ids of a workbook.
type xlsxStyles struct {
	header, money, month, hours, share int
}

// WriteXLSX writes bills as a workbook with sheets Summary (items, the card-hours lost to
// reruns and of trials' runs with their cost when there are any, and totals per bill),
// Lines (one row per line), Idle (the idle section), Models (one row per inference
// service and model: a view inside the total, not to be added to it) and, when a bill has
// pipelines, Stages (one row per pipeline stage and spec, a view too), named by names,
// money and hours as numbers with number formats. Every sheet is there, with its header,
// even without rows. The Lines, Idle and Models sheets are streamed. The workbook's author
// is Kashi and its created time billsTime. The bytes depend on the bills and names only, so
// an issued bill downloads the same every time.
func WriteXLSX(w io.Writer, bills []Bill, names SheetNames) error {
	f := excelize.NewFile()
	defer f.Close()
	st, err := newXLSXStyles(f)
	if err != nil {
		return fmt.Errorf("billing: write xlsx: %w", err)
	}
	if err := setWorkbookProps(f, billsTime(bills)); err != nil {
		return fmt.Errorf("billing: write xlsx: %w", err)
	}
	if err := f.SetSheetName("Sheet1", names.Summary); err != nil {
		return fmt.Errorf("billing: write xlsx: %w", err)
	}
	sheets := []string{names.Lines, names.Idle, names.Models}
	steps := []func(*excelize.File, xlsxStyles, []Bill) error{summaryOn(names.Summary),
		streamed(names.Idle, SheetIdle, idleHeader, idleRows), streamed(names.Lines, SheetLines, linesHeader, lineRows),
		streamed(names.Models, SheetModels, modelsHeader, modelRows)}
	if slices.ContainsFunc(bills, func(b Bill) bool { return len(b.Pipelines) > 0 }) {
		sheets = append(sheets, names.Stages)
		steps = append(steps, streamed(names.Stages, SheetStages, stagesHeader, stageRows))
	}
	for _, name := range sheets {
		if _, err := f.NewSheet(name); err != nil {
			return fmt.Errorf("billing: write xlsx: %w", err)
		}
	}
	for _, step := range steps {
		if err := step(f, st, bills); err != nil {
			return fmt.Errorf("billing: write xlsx: %w", err)
		}
	}
	var buf bytes.Buffer
	if _, err := f.WriteTo(&buf); err != nil {
		return fmt.Errorf("billing: write xlsx: %w", err)
	}
	if err := sortZip(w, buf.Bytes()); err != nil {
		return fmt.Errorf("billing: write xlsx: %w", err)
	}
	return nil
}

func newXLSXStyles(f *excelize.File) (xlsxStyles, error) {
	var st xlsxStyles
	var err error
	money, month, hours := numFmtMoney, numFmtMonth, numFmtHours
	if st.header, err = f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}}); err != nil {
		return st, err
	}
	if st.money, err = f.NewStyle(&excelize.Style{CustomNumFmt: &money}); err != nil {
		return st, err
	}
	if st.month, err = f.NewStyle(&excelize.Style{CustomNumFmt: &month}); err != nil {
		return st, err
	}
	if st.hours, err = f.NewStyle(&excelize.Style{CustomNumFmt: &hours}); err != nil {
		return st, err
	}
	st.share, err = f.NewStyle(&excelize.Style{NumFmt: numFmtShare})
	return st, err
}

// sheetRows writes rows to a sheet through the ordinary (non-streamed) API.
type sheetRows struct {
	f      *excelize.File
	sheet  string
	n      int
	widths colWidths
	err    error
}

// add writes one row; cells are plain values or excelize.Cell with a style.
func (s *sheetRows) add(cells ...any) {
	if s.err != nil {
		return
	}
	s.n++
	s.widths.fit(cells)
	for i, c := range cells {
		ref, err := excelize.CoordinatesToCellName(i+1, s.n)
		if err != nil {
			s.err = err
			return
		}
		v := c
		if cell, ok := c.(excelize.Cell); ok {
			v = cell.Value
			if err := s.f.SetCellStyle(s.sheet, ref, ref, cell.StyleID); err != nil {
				s.err = err
				return
			}
		}
		if v == nil {
			continue
		}
		if err := s.f.SetCellValue(s.sheet, ref, v); err != nil {
			s.err = err
			return
		}
	}
}

func styled(style int, values ...any) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = excelize.Cell{StyleID: style, Value: v}
	}
	return out
}

// summaryOn is the step that writes the Summary sheet, named sheet.
func summaryOn(sheet string) func(*excelize.File, xlsxStyles, []Bill) error {
	return func(f *excelize.File, st xlsxStyles, bills []Bill) error {
		return writeSummary(f, sheet, st, bills)
	}
}

// writeSummary writes the Summary sheet, named sheet.
func writeSummary(f *excelize.File, sheet string, st xlsxStyles, bills []Bill) error {
	s := &sheetRows{f: f, sheet: sheet}
	s.add(styled(st.header, summaryHeader...)...)
	h, m := st.hoursCell, st.moneyCell
	for i := range bills {
		b := &bills[i]
		for _, it := range b.Items {
			var rate, nominal, effective, idle any
			if it.RateFen != 0 {
				rate = m(it.RateFen)
			}
			if it.Kind != ItemPackageFee && it.Kind != ItemAdjustment {
				nominal, effective, idle = h(it.NominalS), h(it.EffectiveS), h(it.IdleS)
			}
			s.add(b.Project, st.monthCell(b.Month), itemLabels[it.Kind], it.Spec, nominal, effective, idle, rate, m(it.AmountFen), it.Note,
				TagsText(b.Tags))
		}
		if b.Held.Rerun > 0 {
			s.add(b.Project, st.monthCell(b.Month), csvRerun, nil, h(b.Held.Rerun), nil, nil, nil, m(b.RerunFen), RerunNote, TagsText(b.Tags))
		}
		if b.Held.Trial > 0 {
			s.add(b.Project, st.monthCell(b.Month), csvTrial, nil, h(b.Held.Trial), nil, nil, nil, m(b.TrialFen), TrialNote, TagsText(b.Tags))
		}
		s.add(b.Project, st.monthCell(b.Month), csvTotal, nil, h(b.NominalS), h(b.EffectiveS), h(b.Held.Idle), nil,
			m(b.TotalFen), "mode "+b.Mode+"; "+string(appendStatus(nil, b)), TagsText(b.Tags))
	}
	if s.err != nil {
		return s.err
	}
	last, err := excelize.CoordinatesToCellName(len(summaryHeader), max(s.n, 2))
	if err != nil {
		return err
	}
	if err := f.AddTable(sheet, &excelize.Table{Range: "A1:" + last, Name: SheetSummary}); err != nil {
		return err
	}
	for i, w := range s.widths {
		col, _ := excelize.ColumnNumberToName(i + 1)
		if err := f.SetColWidth(sheet, col, col, w); err != nil {
			return err
		}
	}
	return f.SetPanes(sheet, frozenHeader)
}

// streamed is the step that streams sheet, its table named table (the English sheet name,
// whatever the sheet's): its header, then the rows that rows passes to add.
func streamed(sheet, table string, header []any, rows func(xlsxStyles, []Bill, func([]any))) func(*excelize.File, xlsxStyles, []Bill) error {
	return func(f *excelize.File, st xlsxStyles, bills []Bill) error {
		return writeStreamed(f, sheet, table, styled(st.header, header...), func(add func([]any)) { rows(st, bills, add) })
	}
}

// idleRows passes add the Idle sheet's rows after the header.
func idleRows(st xlsxStyles, bills []Bill, add func([]any)) {
	h := st.hoursCell
	share := func(idle, of int64) any {
		if of == 0 {
			return nil
		}
		return excelize.Cell{StyleID: st.share, Value: float64(idle) / float64(of)}
	}
	row := make([]any, len(idleHeader))
	for i := range bills {
		b := &bills[i]
		for _, d := range b.Idle {
			row[0], row[1], row[2], row[3], row[4], row[5] = b.Project, st.monthCell(b.Month), d.TaskID, d.Task, d.Owner, d.Spec
			row[6], row[7], row[8], row[9] = h(d.IdleS), h(d.LowUtilS), h(d.NominalS), share(d.IdleS, d.NominalS)
			add(row)
		}
		if p := b.Package; p != nil && p.UnusedS > 0 {
			add([]any{b.Project, st.monthCell(b.Month), nil, csvUnused, fmt.Sprintf("%d cards", p.Cards), p.Spec, h(p.UnusedS), nil,
				h(p.CoveredS), share(p.UnusedS, p.CoveredS)})
		}
		for i := range b.Bookings {
			k := &b.Bookings[i]
			add([]any{b.Project, st.monthCell(b.Month), k.ReservationID, csvBooked, BookingNote(k), k.Spec, h(k.UnusedS), nil,
				h(k.BookedS), share(k.UnusedS, k.BookedS)})
		}
	}
}

// streamRows writes rows one after another to a streamed sheet, keeping the first error.
type streamRows struct {
	sw  *excelize.StreamWriter
	n   int
	err error
}

func (s *streamRows) add(row []any) {
	if s.err != nil {
		return
	}
	s.n++
	ref, err := excelize.CoordinatesToCellName(1, s.n)
	if err == nil {
		err = s.sw.SetRow(ref, row)
	}
	s.err = err
}

// lineRows passes add the Lines sheet's rows after the header.
func lineRows(st xlsxStyles, bills []Bill, add func([]any)) {
	row := make([]any, len(linesHeader))
	for i := range bills {
		b := &bills[i]
		for j := range b.Lines {
			l := &b.Lines[j]
			row[0], row[1], row[2], row[3], row[4], row[5] = b.Project, st.monthCell(b.Month), l.TaskID, l.Task, l.Owner, l.State
			row[6], row[7], row[8], row[9] = l.Ending, l.Spec, l.Region, l.Pricing
			for k, sec := range [...]int64{l.NominalS, l.EffectiveS, l.Idle, l.LowUtil, l.Setup, l.NoData, l.Rerun, l.Trial, l.WastedS, l.EstimatedS} {
				row[10+k] = st.hoursCell(sec)
			}
			row[20] = l.Units
			row[21], row[22] = st.moneyCell(l.RateFen), st.moneyCell(l.AmountFen)
			row[23], row[24] = l.Note, TagsText(b.Tags)
			add(row)
		}
	}
}

// modelRows passes add the Models sheet's rows after the header.
func modelRows(st xlsxStyles, bills []Bill, add func([]any)) {
	row := make([]any, len(modelsHeader))
	for i := range bills {
		b := &bills[i]
		for _, m := range b.Models {
			row[0], row[1], row[2], row[3], row[4] = b.Project, st.monthCell(b.Month), m.ServiceID, m.Service, m.Model
			row[5], row[6], row[7] = st.hoursCell(m.NominalS), st.hoursCell(m.EffectiveS), st.hoursCell(m.IdleS)
			row[8], row[9] = st.moneyCell(m.AmountFen), TagsText(b.Tags)
			add(row)
		}
	}
}

// stageRows passes add the Stages sheet's rows after the header: per pipeline, one row per
// stage and spec (a view inside the total, not to be added to it).
func stageRows(st xlsxStyles, bills []Bill, add func([]any)) {
	row := make([]any, len(stagesHeader))
	for i := range bills {
		b := &bills[i]
		for _, pc := range b.Pipelines {
			for _, s := range pc.Stages {
				row[0], row[1], row[2], row[3], row[4], row[5] = b.Project, st.monthCell(b.Month), pc.PipelineID, pc.Pipeline, s.Stage, s.Spec
				row[6], row[7], row[8] = st.hoursCell(s.NominalS), st.hoursCell(s.EffectiveS), st.moneyCell(s.AmountFen)
				row[9], row[10], row[11], row[12] = pc.TopSpec, st.moneyCell(s.TopSpecFen), st.moneyCell(s.SavingFen), TagsText(b.Tags)
				add(row)
			}
		}
	}
}

// sortZip copies a zip archive with its entries in name order, compressed bytes untouched.
// excelize writes streamed sheets in map order, and a re-download must give the same bytes.
func sortZip(w io.Writer, data []byte) error {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return err
	}
	files := slices.SortedFunc(slices.Values(zr.File), func(a, b *zip.File) int { return strings.Compare(a.Name, b.Name) })
	zw := zip.NewWriter(w)
	for _, zf := range files {
		r, err := zf.OpenRaw()
		if err != nil {
			return err
		}
		h := zf.FileHeader
		out, err := zw.CreateRaw(&h)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, r); err != nil {
			return err
		}
	}
	return zw.Close()
}
