package billing

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
)

// TestBillModelCosts: two replicas of one service and one of another add up per service
// and model in the bill, idle seconds too; a batch task has none; the section is inside the
// total. Chat's replicas served 6 h and 5 h (39,600 s, effective) and were idle 4 h (14,400
// s); embed never served, its 2.5 h (9,000 s) all idle.
func TestBillModelCosts(t *testing.T) {
	f := modelFixture(t)
	b := billOf(t, f.compute(t), "vision")
	want := []ModelCost{
		{ServiceID: 3, Service: "embed", Model: "bge-m3", NominalS: 9000, IdleS: 9000, AmountFen: 2500},
		{ServiceID: 1, Service: "chat", Model: "qwen2.5-7b", NominalS: 54000, EffectiveS: 39600, IdleS: 14400, AmountFen: 15000},
	}
	if diff := cmp.Diff(want, b.Models); diff != "" {
		t.Errorf("bill's models (-want +got):\n%s", diff)
	}
	if b.TotalFen != 2500+15000+5000 {
		t.Errorf("total = %d, want the lines' 22500 (the models section inside it)", b.TotalFen)
	}
}

// TestModelDownloads: the CSV ends each bill with a row per service and model, and the
// workbook's Models sheet has the same figures (TestBillModelCosts's, as hours and yuan).
func TestModelDownloads(t *testing.T) {
	f := modelFixture(t)
	f.in.Projects[0].Tags = "cv"
	b := billOf(t, f.compute(t), "vision")

	rows := readCSV(t, []Bill{b})
	modelRow := func(service, task, nominal, effective, idle, amount, model string) []string {
		row := make([]string, numCols)
		row[colKind], row[colProject], row[colMonth], row[colTags] = csvModel, "vision", "2026-03", "cv"
		row[colTaskID], row[colTask] = service, task
		row[colNominal], row[colEffective], row[colIdle] = nominal, effective, idle
		row[colAmount], row[colNote] = amount, "model "+model+"; inside the total"
		return row
	}
	want := [][]string{
		modelRow("3", "embed", "2.500000", "0.000000", "2.500000", "25.00", "bge-m3"),
		modelRow("1", "chat", "15.000000", "11.000000", "4.000000", "150.00", "qwen2.5-7b"),
	}
	if diff := cmp.Diff(want, rows[len(rows)-len(want):]); diff != "" {
		t.Errorf("CSV's last rows, the models (-want +got):\n%s", diff)
	}

	sheet := readSheet(t, []Bill{b}, SheetModels)
	wantSheet := [][]string{
		{"项目 Project", "月份 Month", "服务ID Service ID", "服务 Service", "模型 Model", "名义卡时 Nominal card-hours",
			"有效卡时 Effective card-hours", "闲置时长 Idle hours", "金额(元) Amount (CNY)", "标签 Tags"},
		{"vision", "2026-03", "3", "embed", "bge-m3", "2.500", "0.000", "2.500", "¥25.00", "cv"},
		{"vision", "2026-03", "1", "chat", "qwen2.5-7b", "15.000", "11.000", "4.000", "¥150.00", "cv"},
	}
	if diff := cmp.Diff(wantSheet, sheet); diff != "" {
		t.Errorf("Models sheet (-want +got):\n%s", diff)
	}
}

// TestReportModelUsage: the report's models hold the same card time as the bill's, classed
// the same (effective is what they served), with the replicas that held cards counted.
func TestReportModelUsage(t *testing.T) {
	f := modelFixture(t)
	from, to := f.in.Month.Bounds(f.in.Location)
	r, err := Utilization(WindowInput{From: from, To: to, AsOf: f.in.AsOf, Projects: f.in.Projects, Allocations: f.allocs,
		Tasks: f.tasks, Readings: f.rollups.readings(), Serving: f.in.Serving})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		ServiceID      int64
		Model, Project string
		Runs           int
		NominalS       int64
		EffectiveS     int64
	}
	var got []row
	for _, m := range r.Models {
		got = append(got, row{m.ServiceID, m.Model, m.Project, m.Runs, m.NominalS, m.EffectiveS})
	}
	want := []row{{3, "bge-m3", "vision", 1, 9000, 0}, {1, "qwen2.5-7b", "vision", 2, 54000, 39600}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("report's models (-want +got):\n%s", diff)
	}
}

// modelFixture is a month of project vision: service 1 ("chat", two replicas, 10 h and 5 h
// of one card, a third and half of their readings idle, the rest active, serving requests
// the first 6 h), service 3 ("embed", 2.5 h, every reading idle, never serving) and a batch
// task (5 h, no readings), at ¥10 a card-hour. The services are classed by what they served,
// whatever their cards' readings: chat 11 h serving and 4 h idle, embed 2.5 h idle.
func modelFixture(t *testing.T) *fixture {
	f := newFixture(t, "2026-03", "Asia/Shanghai").project(1, "vision").price(0, "A100", 1000, 0).
		task(1, 1, "chat", models.TaskRunning, 0, -1).task(2, 1, "chat", models.TaskRunning, 0, -1).
		task(3, 1, "embed", models.TaskRunning, 0, -1).task(4, 1, "train", models.TaskSucceeded, 0, 5).
		hold(1, 1, 1, "A100", 0, 10, false).hold(2, 1, 2, "A100", 0, 5, false).
		hold(3, 1, 3, "A100", 0, 2.5, false).hold(4, 1, 4, "A100", 0, 5, false).
		busy(1, 0, 10, 30, 20, 10).busy(2, 0, 5, 30, 15, 15).busy(3, 0, 2.5, 30, 0, 30)
	for i, svc := range []struct {
		id    int64
		model string
	}{{1, "qwen2.5-7b"}, {1, "qwen2.5-7b"}, {3, "bge-m3"}} {
		f.tasks[i].ServiceID, f.tasks[i].Model = svc.id, svc.model
	}
	return f.served(1, 0, 6).replicas(map[int64]int64{1: 1, 2: 1, 3: 3})
}
