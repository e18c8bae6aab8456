package proof

import (
	"slices"
	"strings"
	"testing"
	"time"

	"kashi/api"
	"kashi/billing"
	"kashi/phrase"
)

// The agreement proof's newer rules, each fed one reading that agrees and readings doctored
// as the code before their fixes read (issue #30): each doctored reading must be a
// disagreement, the agreeing one none. These run with every `go test ./proof`; the proof
// itself runs them on a live demo (TestAgree).

// quotaWorld is vision holding 24 A100 cards of its limit of 24, read the same everywhere:
// the board, /metrics, the API, /projects, the approvals page's context, the queue and a
// waiting task's panel.
func quotaWorld() instant {
	in := instant{metrics: map[string]float64{`kashi_project_gpus_held{project="vision",spec="A100-80G"}`: 24}}
	vision, task := "vision", int64(7)
	for range 24 {
		in.gpus = append(in.gpus, api.GPU{Pool: "a100", Spec: "A100-80G", State: api.GPUBusy, TaskID: &task, Project: &vision})
	}
	var p projectQuotas
	p.Name = "vision"
	p.Quotas = append(p.Quotas, struct {
		Spec          string  `json:"spec"`
		MaxGPUs       int     `json:"max_gpus"`
		UsedCardHours float64 `json:"used_card_hours"`
		InUseGPUs     int     `json:"in_use_gpus"`
		LimitGPUs     int     `json:"limit_gpus"`
	}{Spec: "A100-80G", MaxGPUs: 24, InUseGPUs: 24, LimitGPUs: 24})
	in.quotas = []projectQuotas{p}
	in.quotaReading.seen = []quotaSeen{
		{where: "/projects", project: "vision", spec: "A100-80G", inUse: 24, limit: 24},
		{where: "/approvals request 3", project: "vision", spec: "A100-80G", inUse: 24, limit: 24},
		{where: "GET /api/v1/queue task 9", project: "vision", spec: "A100-80G", inUse: 24, limit: 24},
		{where: "/tasks/9", project: "vision", spec: "A100-80G", inUse: 24, asks: 8, total: 32, limit: 24, panel: true},
	}
	return in
}

func TestQuotaRuleCatchesOldCounts(t *testing.T) {
	for name, tc := range map[string]struct {
		doctor func(*instant)
		want   string // in the one disagreement; "" for none
	}{
		"agrees": {func(*instant) {}, ""},
		// The approvals page counted running tasks by their asked spec: a task of any spec
		// on an RTX card counted against the A100 limit.
		"approvals counts by the asked spec": {func(in *instant) { in.quotaReading.seen[1].inUse = 25 }, "/approvals request 3"},
		// The projects page counted the board's cards, a snapshot behind the allocations.
		"the projects page counts the board": {func(in *instant) { in.quotaReading.seen[0].inUse = 23 }, "/projects"},
		// A count above what the project's tasks hold.
		"more than the allocations": {func(in *instant) {
			in.quotas[0].Quotas[0].InUseGPUs = 25
			for i := range in.quotaReading.seen {
				in.quotaReading.seen[i].inUse = 25
			}
			in.quotaReading.seen[3].total = 33
			in.metrics[`kashi_project_gpus_held{project="vision",spec="A100-80G"}`] = 25
		}, "the board shows 24"},
		"the metric differs": {func(in *instant) {
			in.metrics[`kashi_project_gpus_held{project="vision",spec="A100-80G"}`] = 23
		}, "kashi_project_gpus_held 23"},
		"the task page has no panel": {func(in *instant) { in.quotaReading.seen[3].inUse = -1 }, "no quota panel"},
	} {
		t.Run(name, func(t *testing.T) {
			in := quotaWorld()
			tc.doctor(&in)
			v := violations{}
			in.quotaInUseAgrees(v)
			checkOne(t, v, "quota in use", tc.want)
		})
	}
}

// bookedWorld is 8 free A100 cards on one node, 4 of them booked for recsys, read the same
// on the panel (API and page) and the board, and dry runs that agree.
func bookedWorld() instant {
	in := instant{gpus: []api.GPU{{Pool: "a100", Spec: "A100-80G"}}}
	in.queue.Capacity = []api.Capacity{{Spec: "A100-80G", Total: 8, Free: 4, Booked: 4, BookedFor: []string{"recsys"}, LargestFree: 4}}
	in.quotaReading = quotaReading{queuePage: map[[2]string][2]int{{"A100-80G", ""}: {4, 4}},
		boardBooked: map[string]int{"a100": 4}, boardMarks: 4,
		dry: []dryRun{{spec: "A100-80G", gpus: 4, reason: "starting"}, {spec: "A100-80G", gpus: 5, reason: api.ReasonNoFreeGPUs, detail: "booked"}}}
	return in
}

func TestBookedRuleCatchesFreeCountedBooked(t *testing.T) {
	for name, tc := range map[string]struct {
		doctor func(*instant)
		want   string
	}{
		"agrees": {func(*instant) {}, ""},
		// The panel counted booked cards as free: 8 free while a dry run of 8 answered
		// "booked by another project".
		"booked counted free": {func(in *instant) {
			in.queue.Capacity[0].Free, in.queue.Capacity[0].LargestFree, in.queue.Capacity[0].Booked = 8, 8, 0
			in.queue.Capacity[0].BookedFor = nil
			in.quotaReading.queuePage[[2]string{"A100-80G", ""}] = [2]int{8, 0}
			in.quotaReading.boardBooked, in.quotaReading.boardMarks = map[string]int{}, 0
			in.quotaReading.dry = []dryRun{{spec: "A100-80G", gpus: 8, reason: api.ReasonNoFreeGPUs, detail: "booked"}}
		}, "a dry run of 8 answers booked"},
		"the page differs": {func(in *instant) { in.quotaReading.queuePage[[2]string{"A100-80G", ""}] = [2]int{8, 0} }, "the queue page shows 8 free"},
		"the board counts none": {func(in *instant) {
			in.quotaReading.boardBooked = map[string]int{}
		}, "the board's pools count 0"},
		"the board marks fewer": {func(in *instant) { in.quotaReading.boardMarks = 2 }, "the board marks 2"},
	} {
		t.Run(name, func(t *testing.T) {
			in := bookedWorld()
			tc.doctor(&in)
			v := violations{}
			in.freeAgreesWithBooked(v)
			checkOne(t, v, "free and booked", tc.want)
		})
	}
}

// reportsWorld is vision's weeks and months: 10 h in each of two weeks and 20 h on its
// bills, one weekly message that says what its week's report does, and a service with 16.2
// card-hours (2 idle) on /models and on its bill.
func reportsWorld() instant {
	loc := time.FixedZone("CST", 8*3600)
	f := weekFigures{nominal: 36000, effective: 30000, idle: 3600}
	r := reportsReading{loc: loc, weeks: map[string]map[string]weekFigures{"2026-W47": {"vision": f}, "2026-W48": {"vision": f}},
		monthHeld: map[string]int64{"vision": 72000},
		services:  map[int64]serviceFigures{5: {58320, 51120, 7200}}, servicesPage: map[int64][2]string{5: {"16.20", "2.00"}},
		servicesBilled: map[int64]serviceFigures{5: {58320, 51120, 7200}}}
	l := phrase.Locale{Lang: "en"}
	wk, _ := billing.ParseWeek("2026-W48")
	from, to := wk.Bounds(loc)
	r.sent = []weekSent{{project: "vision", week: "2026-W48", text: l.T("weekly.chat.summary", "vision", "2026-W48",
		phrase.DayRange(from.In(loc), to.In(loc)), "10.00", "8.33", l.Percent(83), "1.00") + "\n\nThe whole report: …"}}
	return instant{reports: r}
}

func TestReportRulesCatchOldWords(t *testing.T) {
	for name, tc := range map[string]struct {
		doctor func(*instant)
		kind   string
		want   string
	}{
		"agrees": {func(*instant) {}, "", ""},
		// The weekly message went out as the same text to every project, naming none, with
		// the figures of all projects together.
		"a message naming no project": {func(in *instant) {
			in.reports.sent[0] = weekSent{text: "Kashi weekly report 2026-W48: 40.00 card-hours held"}
		}, "weekly report", "names no project"},
		"a message with other figures": {func(in *instant) {
			in.reports.sent[0].text = strings.Replace(in.reports.sent[0].text, "10.00 card-hours", "40.00 card-hours", 1)
		}, "weekly report", "the message says"},
		// A week's report that leaves hours out (a removed machine's, say).
		"weeks that add up to less than the bills": {func(in *instant) {
			in.reports.weeks["2026-W47"]["vision"] = weekFigures{nominal: 32400}
		}, "weekly report", "hold 19.00 card-hours, the bills"},
		// The bill classed what a service served as idle: 14.3 of 16.2 hours.
		"serving billed as idle": {func(in *instant) {
			in.reports.servicesBilled[5] = serviceFigures{58320, 6840, 51480}
		}, "services' hours", "the bills of"},
		"the page shows other hours": {func(in *instant) {
			in.reports.servicesPage[5] = [2]string{"16.20", "14.30"}
		}, "services' hours", "the Models page shows"},
	} {
		t.Run(name, func(t *testing.T) {
			in := reportsWorld()
			tc.doctor(&in)
			v := violations{}
			in.weeklyAgrees(v)
			in.servicesAgree(v)
			checkOne(t, v, tc.kind, tc.want)
		})
	}
}

// checkOne fails unless v holds disagreements of kind only, one of them containing want, or
// none when want is "".
func checkOne(t *testing.T, v violations, kind, want string) {
	t.Helper()
	switch {
	case want == "" && len(v) > 0:
		t.Errorf("a reading that agrees: disagreements\n%s", v)
	case want != "" && (len(v) != 1 || !slices.ContainsFunc(v[kind], func(s string) bool { return strings.Contains(s, want) })):
		t.Errorf("want a %s disagreement containing %q, got\n%s", kind, want, v)
	}
}
