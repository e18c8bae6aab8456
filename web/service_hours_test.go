package web_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/xuri/excelize/v2"

	"kashi/billing"
	"kashi/models"
	"kashi/phrase"
	"kashi/serving"
	"kashi/web/webtest"
)

// TestServiceHoursAgree: an inference service whose card sat under the idle threshold of
// utilization (5 %) for two days, serving a request a second through the first and nothing
// through the second, shows on /models (page and API, over the 30 days that are April in
// the billing zone) and on its April bill (page, JSON, CSV and XLSX) the same card-hours,
// the same idle hours (the second day) and the same cost; the bill counts the first day
// effective (serving), not idle. On SQLite and, when KASHI_TEST_PG_DSN is set, Postgres.
func TestServiceHoursAgree(t *testing.T) {
	webtest.ForEachDB(t, checkServiceHours)
}

func checkServiceHours(t *testing.T, s *webtest.Server) {
	ctx := context.Background()
	s.Projects("vision")
	shanghai, err := time.LoadLocation(models.DefaultBillingTimeZone)
	if err != nil {
		t.Fatal(err)
	}
	monthStart, monthEnd := time.Date(2026, 4, 1, 0, 0, 0, 0, shanghai), time.Date(2026, 5, 1, 0, 0, 0, 0, shanghai)
	r := webtest.Node("a100-01").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 1).R
	reg := models.NodeRegistration{Hostname: r.Hostname, Pool: r.Pool}
	for _, g := range r.GPUs {
		reg.GPUs = append(reg.GPUs, models.GPUInfo(g))
	}
	node, err := s.Store.RegisterNode(ctx, reg, "hash-a100-01", monthStart.Add(-24*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Store.SetPrice(ctx, models.Price{Spec: webtest.A100Spec, FromMonth: "2026-01", RateFen: 1500}, monthStart); err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 4, 10, 0, 0, 0, 0, shanghai)
	nt := webtest.Task("qwen-chat").Ready().Nt
	nt.Kind, nt.Service = models.TaskKindService, models.ServiceSpec{Model: "qwen2.5-7b", MetricsPort: 8000}
	svc, _, err := s.Store.CreateTask(ctx, nt, models.DefaultTaskLimits, start.Add(-time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	uuid := webtest.UUIDOf("a100-01", 0)
	s.Place(svc, start, uuid)
	const day = 24 * time.Hour
	for h := time.Duration(0); h < 2*day; h += 12 * time.Hour {
		var ss []models.Reading
		for m := h; m < h+12*time.Hour; m += time.Minute {
			ss = append(ss, models.Reading{UUID: uuid, TS: start.Add(m), UtilPct: 5, MemoryUsedMiB: 40000})
		}
		if _, err := s.Store.IngestSamples(ctx, node.ID, ss, start.Add(h+12*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	// A scrape every 5 minutes: 300 requests each the first day, none the second.
	for m := time.Minute; m < 2*day; m += 5 * time.Minute {
		at := start.Add(m)
		req := 300.0
		if m >= day {
			req = 0
		}
		rep := models.ServiceReport{TaskID: svc.ID, TS: at, Served: serving.Snapshot{Server: serving.VLLM, Model: "qwen2.5-7b",
			Requests: req, GenerationTokens: 100 * req}}
		if err := s.Store.AddServiceReports(ctx, node.ID, []models.ServiceReport{rep}, at); err != nil {
			t.Fatal(err)
		}
	}
	end := start.Add(2 * day)
	if err := s.Store.CancelTask(ctx, svc.ID, "tester", end.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := s.Store.ReportTaskStatus(ctx, node.ID, svc.ID, models.TaskReport{State: models.ReportExited, TS: end}, end); err != nil {
		t.Fatal(err)
	}
	if err := s.Store.RollUp(ctx, monthEnd, 365*day); err != nil {
		t.Fatal(err)
	}
	s.SetNow(monthEnd)

	// /models over 30 days, which end when April does: its API and page.
	w := s.Get("/api/v1/services?range=30d")
	var services []struct {
		ID              int64  `json:"id"`
		CardSeconds     int64  `json:"card_seconds"`
		IdleCardSeconds int64  `json:"idle_card_seconds"`
		CostFen         *int64 `json:"cost_fen"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &services); err != nil || len(services) != 1 || services[0].CostFen == nil {
		t.Fatalf("GET /api/v1/services = %d %s (%v); want one service with a cost", w.Code, w.Body, err)
	}
	m := services[0]
	if m.CardSeconds != 2*86400 || m.IdleCardSeconds != 86400 {
		t.Fatalf("/models: %d card-seconds, %d idle; want the two days held, the second idle", m.CardSeconds, m.IdleCardSeconds)
	}
	modelsPage := doc(t, s.Get("/models?range=30d").Body.Bytes())
	row := modelsPage.Find(`[data-testid=service]`)
	pageCard, pageIdle := text(row.Find(`[data-testid=service-card-hours]`)), text(row.Find(`[data-testid=service-idle-hours]`))
	pageCost := text(row.Find(`[data-testid=service-cost]`))

	// The bill of April from each surface.
	v := s.BillViews("vision", "2026-04")
	var b billing.Bill
	if err := json.Unmarshal(v.JSON, &b); err != nil {
		t.Fatal(err)
	}
	if len(b.Models) != 1 || len(b.Lines) != 1 {
		t.Fatalf("bill: models %+v, lines %+v; want one of each", b.Models, b.Lines)
	}
	want := struct{ nominal, effective, idle, amount int64 }{m.CardSeconds, m.CardSeconds - m.IdleCardSeconds, m.IdleCardSeconds, *m.CostFen}
	for what, got := range map[string]struct{ nominal, effective, idle, amount int64 }{
		"JSON models": {b.Models[0].NominalS, b.Models[0].EffectiveS, b.Models[0].IdleS, b.Models[0].AmountFen},
		"JSON line":   {b.Lines[0].NominalS, b.Lines[0].EffectiveS, b.Lines[0].Idle, b.Lines[0].AmountFen},
	} {
		if got != want {
			t.Errorf("%s: nominal, effective, idle s and amount = %v, want /models' %v", what, got, want)
		}
	}
	var classes struct {
		Lines []struct {
			ServingS int64 `json:"serving_s"`
		} `json:"lines"`
	}
	if err := json.Unmarshal(v.JSON, &classes); err != nil || classes.Lines[0].ServingS != want.effective {
		t.Errorf("JSON line: %+v (%v), want %d s serving, those in which the service served", classes, err, want.effective)
	}

	rows, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(v.CSV, []byte("\uFEFF")))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := func(name string) int { return slices.Index(rows[0], name) }
	hours := []string{billing.FormatHours(want.nominal), billing.FormatHours(want.effective), billing.FormatHours(want.idle)}
	for _, kind := range []string{"明细 line", "模型 model"} {
		i := slices.IndexFunc(rows, func(r []string) bool { return r[0] == kind })
		if i < 0 {
			t.Errorf("CSV has no %q row", kind)
			continue
		}
		r := rows[i]
		got := []string{r[col("名义卡时 Nominal card-hours")], r[col("有效卡时 Effective card-hours")], r[col("闲置时长 Idle hours")]}
		if !slices.Equal(got, hours) || r[col("金额(元) Amount (CNY)")] != yuan(want.amount) {
			t.Errorf("CSV %s row: hours %v, amount %s; want /models' %v, %s", kind, got, r[col("金额(元) Amount (CNY)")], hours, yuan(want.amount))
		}
	}

	f, err := excelize.OpenReader(bytes.NewReader(v.XLSX), excelize.Options{RawCellValue: true})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sheet, err := f.GetRows(billing.SheetModels)
	if err != nil || len(sheet) != 2 {
		t.Fatalf("Models sheet = %v, %v; want a header and one row", sheet, err)
	}
	cell := func(name string) string { return sheet[1][slices.Index(sheet[0], name)] }
	for name, secs := range map[string]int64{"名义卡时 Nominal card-hours": want.nominal, "有效卡时 Effective card-hours": want.effective,
		"闲置时长 Idle hours": want.idle} {
		h, err := strconv.ParseFloat(cell(name), 64)
		if err != nil || math.Round(h*3600) != float64(secs) {
			t.Errorf("Models sheet %s = %q, want %d s as hours", name, cell(name), secs)
		}
	}
	if a, err := strconv.ParseFloat(cell("金额(元) Amount (CNY)"), 64); err != nil || math.Round(a*100) != float64(want.amount) {
		t.Errorf("Models sheet amount = %q, want %d fen", cell("金额(元) Amount (CNY)"), want.amount)
	}

	billPage := doc(t, v.Page).Find(`[data-testid=bill-model]`)
	got := []string{text(billPage.Find(`[data-testid=bill-model-nominal]`)), text(billPage.Find(`[data-testid=bill-model-effective]`)),
		text(billPage.Find(`[data-testid=bill-model-idle]`)), text(billPage.Find(`[data-testid=bill-model-amount]`))}
	wantPage := []string{pageCard, phrase.Hours(want.effective), pageIdle, pageCost}
	if !slices.Equal(got, wantPage) || pageCard != phrase.Hours(want.nominal) {
		t.Errorf("bill page's service: %q, want the Models page's %q (card-hours, effective, idle, cost)", got, wantPage)
	}
}

// doc parses a page.
func doc(t *testing.T, body []byte) *goquery.Document {
	t.Helper()
	d, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// yuan is fen as the CSV writes it.
func yuan(fen int64) string { return string(billing.AppendFen(nil, fen)) }

// text is a selection's text without the spaces around it.
func text(s *goquery.Selection) string { return strings.TrimSpace(s.Text()) }
