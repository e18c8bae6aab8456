package tasks

import (
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"kashi/api"
	"kashi/phrase"
	"kashi/views"
	"kashi/views/viewstest"
)

// queueFixture is a queue with a row of every reason, a running task and a form with a problem.
func queueFixture() QueueData {
	row := func(pos int, id int64, reason api.WaitReason) views.QueueRow {
		return views.QueueRow{Position: pos, TaskID: id, Name: "task-" + string(reason), Project: "vision", Owner: "ana", GPUs: 2,
			Spec: "A100-80G", Priority: "normal", EstGPUHours: 3.25, DataReady: true, SubmittedAt: viewstest.T0.Add(-time.Hour),
			Reason: reason}
	}
	starting := row(0, 1, api.ReasonStarting)
	starting.ETAP50, starting.ETAP90 = viewstest.T0, viewstest.T0
	noFree := row(1, 2, api.ReasonNoFreeGPUs)
	noFree.ReasonSpec = "A100-80G"
	noFree.ETAP50, noFree.ETAP90 = viewstest.T0.Add(2*time.Hour+10*time.Minute), viewstest.T0.Add(5*time.Hour)
	behind := row(2, 3, api.ReasonBehind)
	behind.Ahead = 12
	quota := row(3, 4, api.ReasonQuota)
	quota.Detail = views.DetailBudgetExhausted
	noData := row(4, 5, api.ReasonDataNotReady)
	noData.DataReady = false
	noData.Name = `<img src=x onerror=alert(1)>`
	return QueueData{
		Now: viewstest.T0,
		Lanes: []QueueLane{
			{Name: views.LaneShort, Rows: []views.QueueRow{noFree}},
			{Name: views.LaneLong, Rows: []views.QueueRow{starting, behind, quota, noData, row(5, 6, api.ReasonOffPeakOnly),
				row(6, 7, api.ReasonNoSuchCapacity)}},
		},
		Running:  []RunningTask{{TaskID: 9, Name: "pretrain", Project: "llm", GPUs: 8, Node: "a100-01", StartedAt: viewstest.T0.Add(-3 * time.Hour)}},
		Capacity: []SpecCapacity{{Spec: "A100-80G", Total: 16, Held: 10, Free: 6, LargestFree: 4}},
		Form: TaskForm{Values: TaskFormValues{Project: "vision", GPUs: "9", Queue: views.LaneLong, Priority: "normal"},
			Errors:   map[string]views.FormError{"gpus": {Code: views.FormErrStore, Text: "must be between 1 and 8"}},
			Projects: []string{"llm", "vision"}, Specs: []string{"A100-80G"}, ShortMax: 2 * time.Hour, LongMax: 14 * 24 * time.Hour},
	}
}

func TestQueueReasons(t *testing.T) {
	tests := map[phrase.Locale]map[string]string{
		viewstest.En: {
			"1": "Starting: cards are free", "2": "No free A100-80G", "3": "Behind #12",
			"4": "Quota: card-hour budget spent", "5": "Data not ready", "6": "Off-peak only",
			"7": "Asks more GPUs than the pool can give",
		},
		viewstest.Zh: {
			"1": "即将启动：有空闲卡", "2": "无空闲 A100-80G", "3": "排在 #12 之后", "4": "配额不足：卡时预算已用完",
			"5": "数据未就绪", "6": "仅闲时运行", "7": "所需卡数超出资源池总量",
		},
	}
	for l, want := range tests {
		doc := viewstest.Parse(t, viewstest.Render(t, Queue(l, queueFixture())))
		got := map[string]string{}
		doc.Find(`[data-testid="queue-row"]`).Each(func(_ int, s *goquery.Selection) {
			got[s.AttrOr("data-task-id", "")] = s.Find(`[data-testid="reason"]`).Text()
		})
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s reasons mismatch (-want +got):\n%s", l.Lang, diff)
		}
	}
}

func TestQueuePageContent(t *testing.T) {
	html := viewstest.Render(t, Queue(viewstest.En, queueFixture()))
	if strings.Contains(string(html), "<img src=x") {
		t.Errorf("a task name's markup reached the page unescaped")
	}
	doc := viewstest.Parse(t, html)
	if got := doc.Find(`title`).Text(); got != "Queue · Kashi 卡时" {
		t.Errorf("<title> = %q", got)
	}
	if got := doc.Find(`[data-task-id="2"] .p50`).Text(); got != "in ~2h 10m" {
		t.Errorf("ETA p50 = %q, want %q", got, "in ~2h 10m")
	}
	if got := doc.Find(`[data-task-id="5"] .p50`).Text(); got != "unknown" {
		t.Errorf("unknown ETA = %q", got)
	}
	if got := doc.Find(`[data-task-id="2"] .num`).Eq(1).Text(); got != "3.3" {
		t.Errorf("card-hours = %q, want 3.3", got)
	}
	if got := doc.Find(`[data-task-id="5"] [data-testid="task-name"]`).Text(); got != `<img src=x onerror=alert(1)>` {
		t.Errorf("task name text = %q", got)
	}
	if got := doc.Find(`#err-gpus`).Text(); got != "must be between 1 and 8" {
		t.Errorf("#err-gpus = %q", got)
	}
	if got := doc.Find(`#f-gpus`).AttrOr("aria-invalid", ""); got != "true" {
		t.Errorf(`#f-gpus aria-invalid = %q, want "true"`, got)
	}
	if got := doc.Find(`#f-name`).AttrOr("aria-invalid", "none"); got != "none" {
		t.Errorf(`#f-name aria-invalid = %q, want none`, got)
	}
	if got := doc.Find(`meta[name="htmx-config"]`).Length(); got != 1 {
		t.Errorf("found %d htmx-config metas, want 1", got)
	}
}

func TestQueueZH(t *testing.T) {
	doc := viewstest.Parse(t, viewstest.Render(t, Queue(viewstest.Zh, queueFixture())))
	if got := doc.Find(`[data-task-id="2"] .p50`).Text(); got != "约 2小时10分后" {
		t.Errorf("zh ETA = %q, want %q", got, "约 2小时10分后")
	}
	if got := doc.Find(`[data-lane="short"] h2`).Text(); got != "短任务快车道" {
		t.Errorf("zh short lane = %q", got)
	}
}
