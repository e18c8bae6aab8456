package billing

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"testing"

	"github.com/xuri/excelize/v2"
)

// heldClasses is held card-seconds as a surface shows them: nominal, effective and each
// waste class.
type heldClasses struct {
	nominal, effective, idle, lowUtil, setup, noData, rerun, trial int64
}

// holds reports whether nominal = effective + each waste class.
func (c heldClasses) holds() bool {
	return c.nominal == c.effective+c.idle+c.lowUtil+c.setup+c.noData+c.rerun+c.trial
}

func (c *heldClasses) add(o heldClasses) {
	c.nominal += o.nominal
	c.effective += o.effective
	c.idle += o.idle
	c.lowUtil += o.lowUtil
	c.setup += o.setup
	c.noData += o.noData
	c.rerun += o.rerun
	c.trial += o.trial
}

// surfaceKey is a task of a project's month, or (task 0) the project's month itself.
type surfaceKey struct {
	project, month string
	task           int64
}

// surfaceFigures are a surface's figures per task and per project and month.
type surfaceFigures map[surfaceKey]heldClasses

func (f surfaceFigures) add(k surfaceKey, c heldClasses) {
	v := f[k]
	v.add(c)
	f[k] = v
}

// checkSurfaces checks that every surface a bill is read from — its JSON (what the API
// answers), its CSV, its workbook's Lines and Summary sheets — holds nominal = effective +
// each waste class per task, per project and month, and shows the figures the bills hold.
// (The page is checked by the bills area's tests.)
func checkSurfaces(t *testing.T, name string, bills []Bill) {
	t.Helper()
	want := surfaceFigures{}
	for _, b := range bills {
		for _, l := range b.Lines {
			want.add(surfaceKey{b.Project, b.Month, l.TaskID}, heldClasses{l.NominalS, l.EffectiveS, l.Idle, l.LowUtil, l.Setup, l.NoData, l.Rerun, l.Trial})
		}
		want.add(surfaceKey{b.Project, b.Month, 0}, heldClasses{b.NominalS, b.EffectiveS, b.Held.Idle, b.Held.LowUtil, b.Held.Setup, b.Held.NoData, b.Held.Rerun, b.Held.Trial})
	}
	check := func(surface string, got surfaceFigures) {
		t.Helper()
		for k, c := range got {
			if !c.holds() {
				t.Errorf("%s: %s: %+v: held ≠ effective + each waste class", name, surface, k)
			}
		}
		for k, w := range want {
			if got[k] != w {
				t.Errorf("%s: %s: %+v = %+v, the bill holds %+v", name, surface, k, got[k], w)
			}
		}
		for k := range got {
			if _, ok := want[k]; !ok {
				t.Errorf("%s: %s shows %+v, which no bill holds", name, surface, k)
			}
		}
	}
	check("JSON", jsonFigures(t, bills))
	check("CSV", csvFigures(t, bills))
	lines, totals := xlsxFigures(t, bills)
	check("XLSX", lines)
	for k, c := range want {
		if k.task == 0 && totals[k] != [3]int64{c.nominal, c.effective, c.idle} {
			t.Errorf("%s: XLSX Summary: %+v total = %v, the bill holds %d, %d, %d", name, k, totals[k], c.nominal, c.effective, c.idle)
		}
	}
}

// jsonFigures reads the bills back from their JSON by the wire's names, checking that
// effective is active + serving on every line and in the bill's held classes.
func jsonFigures(t *testing.T, bills []Bill) surfaceFigures {
	t.Helper()
	type wireClasses struct {
		Setup   int64 `json:"setup_s"`
		Active  int64 `json:"active_s"`
		Serving int64 `json:"serving_s"`
		LowUtil int64 `json:"low_util_s"`
		Idle    int64 `json:"idle_s"`
		NoData  int64 `json:"no_data_s"`
		Rerun   int64 `json:"rerun_s"`
		Trial   int64 `json:"trial_s"`
	}
	var wire []struct {
		Project string `json:"project"`
		Month   string `json:"month"`
		Lines   []struct {
			wireClasses
			TaskID     int64 `json:"task_id"`
			NominalS   int64 `json:"nominal_s"`
			EffectiveS int64 `json:"effective_s"`
		} `json:"lines"`
		Held       wireClasses `json:"held"`
		NominalS   int64       `json:"nominal_s"`
		EffectiveS int64       `json:"effective_s"`
	}
	body, err := json.Marshal(bills)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(body, &wire); err != nil {
		t.Fatal(err)
	}
	out := surfaceFigures{}
	for _, b := range wire {
		for _, l := range b.Lines {
			if l.EffectiveS != l.Active+l.Serving {
				t.Errorf("JSON %s %s task %d: effective %d ≠ active %d + serving %d", b.Project, b.Month, l.TaskID, l.EffectiveS, l.Active, l.Serving)
			}
			out.add(surfaceKey{b.Project, b.Month, l.TaskID}, heldClasses{l.NominalS, l.EffectiveS, l.Idle, l.LowUtil, l.Setup, l.NoData, l.Rerun, l.Trial})
		}
		if b.EffectiveS != b.Held.Active+b.Held.Serving {
			t.Errorf("JSON %s %s: effective %d ≠ held active %d + serving %d", b.Project, b.Month, b.EffectiveS, b.Held.Active, b.Held.Serving)
		}
		out.add(surfaceKey{b.Project, b.Month, 0}, heldClasses{b.NominalS, b.EffectiveS, b.Held.Idle, b.Held.LowUtil, b.Held.Setup, b.Held.NoData, b.Held.Rerun, b.Held.Trial})
	}
	return out
}

// secondsOf is an hours figure of a download (six decimals in the CSV, a number in the
// workbook) as the whole seconds it was written from.
func secondsOf(t *testing.T, hours string) int64 {
	t.Helper()
	h, err := strconv.ParseFloat(hours, 64)
	if err != nil {
		t.Fatalf("hours %q: %v", hours, err)
	}
	return int64(math.Round(h * 3600))
}

// csvFigures reads the bills' CSV: its line rows per task, its total rows per project and
// month.
func csvFigures(t *testing.T, bills []Bill) surfaceFigures {
	t.Helper()
	rows := readCSV(t, bills)
	out := surfaceFigures{}
	for _, r := range rows[1:] {
		var task int64
		switch r[colKind] {
		case csvLine:
			id, err := strconv.ParseInt(r[colTaskID], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			task = id
		case csvTotal:
		default:
			continue
		}
		s := func(col int) int64 { return secondsOf(t, r[col]) }
		out.add(surfaceKey{r[colProject], r[colMonth], task},
			heldClasses{s(colNominal), s(colEffective), s(colIdle), s(colLowUtil), s(colSetup), s(colNoData), s(colRerun), s(colTrial)})
	}
	return out
}

// xlsxFigures reads the bills' workbook: the Lines sheet per task and project and month (the
// sheet has every class), and the Summary sheet's total rows (nominal, effective, idle).
func xlsxFigures(t *testing.T, bills []Bill) (surfaceFigures, map[surfaceKey][3]int64) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteXLSX(&buf, bills, EnglishSheets); err != nil {
		t.Fatal(err)
	}
	f, err := excelize.OpenReader(&buf, excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := f.GetRows(SheetLines)
	if err != nil {
		t.Fatal(err)
	}
	col := func(header []any, name string) int {
		i := slices.Index(header, any(name))
		if i < 0 {
			t.Fatalf("no column %q", name)
		}
		return i
	}
	month := func(serial string) string {
		v, err := strconv.ParseFloat(serial, 64)
		if err != nil {
			t.Fatalf("month %q: %v", serial, err)
		}
		tm, err := excelize.ExcelDateToTime(v, false)
		if err != nil {
			t.Fatal(err)
		}
		return tm.Format("2006-01")
	}
	out := surfaceFigures{}
	for _, r := range rows[1:] {
		cell := func(name string) string { return r[col(linesHeader, name)] }
		s := func(name string) int64 { return secondsOf(t, cell(name)) }
		task, err := strconv.ParseInt(cell("任务ID Task ID"), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		c := heldClasses{s("名义卡时 Nominal card-hours"), s("有效卡时 Effective card-hours"), s("闲置时长 Idle hours"),
			s("低利用 Low-util hours"), s("准备 Setup hours"), s("无数据 No-data hours"), s("重跑 Rerun hours"), s("试跑 Trial hours")}
		out.add(surfaceKey{cell("项目 Project"), month(cell("月份 Month")), task}, c)
		out.add(surfaceKey{cell("项目 Project"), month(cell("月份 Month")), 0}, c)
	}
	summary, err := f.GetRows(SheetSummary)
	if err != nil {
		t.Fatal(err)
	}
	totals := map[surfaceKey][3]int64{}
	for _, r := range summary[1:] {
		cell := func(name string) string { return r[col(summaryHeader, name)] }
		if cell("类型 Kind") != csvTotal {
			continue
		}
		s := func(name string) int64 { return secondsOf(t, cell(name)) }
		totals[surfaceKey{cell("项目 Project"), month(cell("月份 Month")), 0}] = [3]int64{s("名义卡时 Nominal card-hours"),
			s("有效卡时 Effective card-hours"), s("闲置时长 Idle hours")}
	}
	return out, totals
}
