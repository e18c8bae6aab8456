package bills_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/xuri/excelize/v2"

	"kashi/billing"
	"kashi/web/webtest"
)

func TestReportPage(t *testing.T) {
	w := webtest.NewBillWorld(t)
	r := w.As("finance", "/reports?week="+webtest.ReportWeek)
	if r.Code != http.StatusOK {
		t.Fatalf("GET /reports = %d %s", r.Code, r.Body)
	}
	doc := webtest.Parse(t, string(r.Body))
	for _, id := range []string{"report-projects", "report-nodes", "report-specs", "top-idle"} {
		chart := doc.Find(`[data-testid=` + id + `] [data-testid=bar-chart] svg[role=img]`)
		if chart.Length() != 1 || strings.TrimSpace(chart.Find("title").First().Text()) == "" || chart.Find("rect.seg").Length() == 0 {
			t.Errorf("%s: no bar chart with a title", id)
		}
	}
	if got := webtest.Attrs(doc, `[data-testid=report-projects] [data-testid=usage-row]`, "data-key"); strings.Join(got, ",") != "nlp,vision" {
		t.Errorf("projects = %v, want nlp and vision", got)
	}
	if got := webtest.Attrs(doc, `[data-testid=report-nodes] [data-testid=usage-row]`, "data-key"); strings.Join(got, ",") != "a100-01" {
		t.Errorf("nodes = %v", got)
	}
	if got := webtest.Attrs(doc, `[data-testid=report-specs] [data-testid=usage-row]`, "data-key"); strings.Join(got, ",") != webtest.A100Spec {
		t.Errorf("specs = %v", got)
	}
	// Most idle first: llama's idle card (3 h), then bert's (2 h); eval-3 had no readings.
	var idle []string
	doc.Find(`[data-testid=idle-task] .tname`).Each(func(_ int, s *goquery.Selection) { idle = append(idle, s.Text()) })
	if strings.Join(idle, ",") != webtest.BillTaskID+",bert" {
		t.Errorf("top idle tasks = %v, want %s then bert", idle, webtest.BillTaskID)
	}
	out := doc.Find(`[data-testid=output-cost] [data-testid=output-row][data-key=llama]`)
	if out.Length() != 1 || !strings.Contains(out.Text(), "120") {
		t.Errorf("no cost per output unit for the model tag llama: %q", doc.Find(`[data-testid=output-cost]`).Text())
	}
	if doc.Find(`a[data-testid=report-csv][href="/reports.csv?week=2026-W07"]`).Length() != 1 {
		t.Errorf("no CSV download of the report")
	}
	if doc.Find(`a[data-testid=week-prev][href="/reports?week=2026-W06"]`).Length() != 1 ||
		doc.Find(`a[data-testid=week-next][href="/reports?week=2026-W08"]`).Length() != 1 {
		t.Errorf("no links to the weeks before and after")
	}

	// The default is the last week that ended with card time: t0 is Monday 2 March (week
	// 10), and weeks 8 and 9 held no card.
	doc = webtest.Parse(t, string(w.As("finance", "/reports").Body))
	if v := doc.Find(`input[name=week]`).AttrOr("value", ""); v != webtest.ReportWeek {
		t.Errorf("default week = %q, want %s", v, webtest.ReportWeek)
	}
	if doc.Find(`[data-testid=week-next]`).Length() != 1 {
		t.Errorf("no link to the running week")
	}
}

func TestReportOfMember(t *testing.T) {
	w := webtest.NewBillWorld(t)
	doc := webtest.Parse(t, string(w.As("member", "/reports?week="+webtest.ReportWeek).Body))
	if got := webtest.Attrs(doc, `[data-testid=report-projects] [data-testid=usage-row]`, "data-key"); strings.Join(got, ",") != "vision" {
		t.Errorf("a member of vision sees projects %v", got)
	}
	if strings.Contains(doc.Find(`[data-testid=top-idle]`).Text(), "bert") {
		t.Errorf("a member of vision sees nlp's task")
	}
	if r := w.As("viewer", "/reports"); r.Code != http.StatusForbidden {
		t.Errorf("viewer GET /reports = %d, want 403", r.Code)
	}
	if r := w.As("viewer", "/reports.csv"); r.Code != http.StatusForbidden {
		t.Errorf("viewer GET /reports.csv = %d, want 403", r.Code)
	}
}

func TestReportCSV(t *testing.T) {
	w := webtest.NewBillWorld(t)
	r := w.As("finance", "/reports.csv?week="+webtest.ReportWeek)
	if r.Code != http.StatusOK || r.Header.Get("Content-Type") != "text/csv; charset=utf-8" ||
		r.Header.Get("Content-Disposition") != "attachment; filename=kashi-report-2026-W07.csv" {
		t.Fatalf("GET /reports.csv = %d %q %q", r.Code, r.Header.Get("Content-Type"), r.Header.Get("Content-Disposition"))
	}
	if !bytes.HasPrefix(r.Body, []byte("\uFEFF")) {
		t.Fatal("report CSV lacks the byte-order mark")
	}
	rows, err := csv.NewReader(bytes.NewReader(r.Body[3:])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// The week holds all of February's card time: the same seconds as the month's bills.
	b := billOf(t, w.As("finance", "/api/v1/bills/vision/"+webtest.BillMonth))
	n := billOf(t, w.As("finance", "/api/v1/bills/nlp/"+webtest.BillMonth))
	byKind := map[string][][]string{}
	for _, row := range rows[1:] {
		byKind[row[0]] = append(byKind[row[0]], row)
	}
	total := byKind["合计 total"]
	if len(total) != 1 || total[0][6] != billing.FormatHours(b.NominalS+n.NominalS) || total[0][8] != billing.FormatHours(b.Held.Idle+n.Held.Idle) {
		t.Errorf("total row = %v, want %s h held and %s h idle", total, billing.FormatHours(b.NominalS+n.NominalS), billing.FormatHours(b.Held.Idle+n.Held.Idle))
	}
	if len(byKind["项目 project"]) != 2 || len(byKind["节点 node"]) != 1 || len(byKind["卡型 spec"]) != 1 ||
		len(byKind["闲置任务 idle-task"]) != 2 || len(byKind["产出·标签 output-tag"]) != 1 {
		t.Errorf("report CSV rows = %v", byKind)
	}

	for week, code := range map[string]int{"2026-13": http.StatusBadRequest, "2026-W60": http.StatusBadRequest, "2026-W12": http.StatusUnprocessableEntity} {
		for _, path := range []string{"/reports?week=", "/reports.csv?week="} {
			r := w.As("finance", path+week)
			if r.Code != code || !strings.Contains(string(r.Body), "week") {
				t.Errorf("GET %s%s = %d, want %d naming the week", path, week, r.Code, code)
			}
		}
	}
}

// TestReportXLSX: the weekly report as a workbook holds the CSV's rows, its hours as numbers
// with the hours format (read by a second reader, apart from excelize), and the same roles.
func TestReportXLSX(t *testing.T) {
	w := webtest.NewBillWorld(t)
	r := w.As("finance", "/reports.xlsx?week="+webtest.ReportWeek)
	if r.Code != http.StatusOK || r.Header.Get("Content-Type") != "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" ||
		r.Header.Get("Content-Disposition") != "attachment; filename=kashi-report-2026-W07.xlsx" {
		t.Fatalf("GET /reports.xlsx = %d %q %q", r.Code, r.Header.Get("Content-Type"), r.Header.Get("Content-Disposition"))
	}
	sheet := readXLSX(t, r.Body)[billing.SheetReport]
	if sheet == nil {
		t.Fatalf("no %s sheet", billing.SheetReport)
	}
	rows, err := csv.NewReader(bytes.NewReader(w.As("finance", "/reports.csv?week="+webtest.ReportWeek).Body[3:])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range rows {
		for j, want := range row {
			ref, _ := excelize.CoordinatesToCellName(j+1, i+1)
			got := sheet[ref]
			wf, notNumber := strconv.ParseFloat(want, 64)
			switch {
			case want == "":
				if got.Text != "" {
					t.Errorf("%s = %q, want empty as in the CSV", ref, got.Text)
				}
			case i == 0 || notNumber != nil || got.Text == want:
				if got.Text != want {
					t.Errorf("%s = %q, want %q", ref, got.Text, want)
				}
			default: // a number: hours, counts, money
				gf, err := strconv.ParseFloat(got.Text, 64)
				if (got.Type != "" && got.Type != "n") || err != nil || math.Abs(gf-wf) > 0.005 {
					t.Errorf("%s = %+v, want the number %s", ref, got, want)
				}
			}
			if i > 0 && j >= 6 && j <= 14 && want != "" && got.Format != "#,##0.000" {
				t.Errorf("%s has format %q, want hours #,##0.000", ref, got.Format)
			}
		}
	}
	if r := w.As("viewer", "/reports.xlsx"); r.Code != http.StatusForbidden {
		t.Errorf("viewer GET /reports.xlsx = %d, want 403", r.Code)
	}
	doc := webtest.Parse(t, string(w.As("finance", "/reports?week="+webtest.ReportWeek).Body))
	if doc.Find(`a[data-testid=report-xlsx][href="/reports.xlsx?week=2026-W07"]`).Length() != 1 {
		t.Errorf("no XLSX download of the report")
	}
}

// TestReportReruns: the week of a task rerun after its node was lost shows, per project, the
// card-hours lost to the rerun and their cost at the bill's prices, on the page (both
// languages) and in the CSV; the bill of the month says the same.
func TestReportReruns(t *testing.T) {
	w := webtest.NewBillWorld(t)
	w.RunRerun(t, webtest.Task("pretrain").Of("vision").Ready(), webtest.Feb(13, 0), 30*time.Minute, 2*time.Hour, time.Hour, 90)
	if err := w.Store.RollUp(context.Background(), webtest.T0, 365*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	b := billOf(t, w.As("finance", "/api/v1/bills/vision/"+webtest.BillMonth))
	if b.Held.Rerun != 90*60 || b.RerunFen != 2250 {
		t.Fatalf("vision's bill: rerun %d s costing %d fen; want 1.5 h costing ¥22.50", b.Held.Rerun, b.RerunFen)
	}
	row := webtest.Parse(t, string(w.As("finance", "/reports?week="+webtest.ReportWeek).Body)).Find(`[data-testid=rerun-usage][data-project=vision]`)
	if row.Length() != 1 || strings.TrimSpace(row.Find(`[data-testid=rerun-usage-hours]`).Text()) != "1.50" ||
		!strings.Contains(row.Find(`[data-testid=rerun-usage-cost]`).Text(), "¥22.50") {
		t.Errorf("report page's rerun row = %q; want vision's 1.50 card-hours costing ¥22.50", row.Text())
	}
	zh := w.Get("/reports?week="+webtest.ReportWeek, append(webtest.Bearer(w.Tokens["finance"]), "Accept-Language", "zh-CN")...)
	if doc := webtest.Parse(t, zh.Body.String()); !strings.Contains(doc.Find(`#report-reruns`).Text(), "重跑") {
		t.Errorf("Chinese report page's rerun heading = %q", doc.Find(`#report-reruns`).Text())
	}
	rows, err := csv.NewReader(bytes.NewReader(w.As("finance", "/reports.csv?week="+webtest.ReportWeek).Body[3:])).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var rerun []string
	for _, r := range rows {
		if r[0] == "重跑 rerun" {
			rerun = r
		}
	}
	if cost := slices.Index(rows[0], "费用 Cost (yuan)"); rerun == nil || rerun[1] != "vision" || rerun[6] != "1.500000" || cost < 0 || rerun[cost] != "22.50" {
		t.Errorf("report CSV rerun row = %v", rerun)
	}
}
