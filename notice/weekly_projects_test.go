package notice_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/billing"
	"kashi/models"
	"kashi/models/modelstest"
	"kashi/notice"
	"kashi/notify"
	"kashi/phrase"
)

// TestWeeklyReportPerProject: a week in which three projects held cards, one of them on a
// machine the scaling loop removed since, sends three messages, one per project, each naming
// its project and giving its own card-hours, no two alike, in the channels and in-app (where
// a lead of the three reads each apart); the week's node rows name the machines by hostname,
// the removed one too.
func TestWeeklyReportPerProject(t *testing.T) {
	ctx := context.Background()
	start := shanghai(3, 10, 0) // Tuesday of 2026-W10
	s := modelstest.SQLite(t, models.Options{})
	big := modelstest.Node("gpu-big").Pool("a100").A100s(4).Register(t, s, start)
	small := modelstest.Node("gpu-small").Pool("a100").A100s(1).Register(t, s, start)
	lead, err := s.CreateUser(ctx, "li", "pw-li", models.RoleUser, start)
	if err != nil {
		t.Fatal(err)
	}
	runs := []struct {
		project string
		gpus    int
		node    models.NodeGPUs
		hours   int
		task    models.Task
	}{{project: "vision", gpus: 2, node: big, hours: 10}, {project: "nlp", gpus: 1, node: big, hours: 5},
		{project: "speech", gpus: 1, node: small, hours: 3}}
	for i, r := range runs {
		runs[i].task = modelstest.Task(r.project, "train").GPUs(r.gpus).Create(t, s, start)
		modelstest.Run(t, s, runs[i].task, r.node, start)
		p, _ := s.ProjectByName(ctx, r.project)
		if err := s.SetMember(ctx, p.ID, lead.ID, models.ProjectRoleLead); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range runs {
		end := start.Add(time.Duration(r.hours) * time.Hour)
		if err := s.ReportTaskStatus(ctx, r.node.ID, r.task.ID, models.TaskReport{State: models.ReportExited, TS: end}, end); err != nil {
			t.Fatal(err)
		}
	}
	// The scaling loop takes the small machine out before the report goes.
	gone := shanghai(5, 12, 0)
	if err := s.DrainNode(ctx, small.ID, models.ScalingEvent{Kind: "drain"}, gone); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RemoveNode(ctx, small.ID, models.ScalingEvent{Kind: "remove"}, gone); err != nil {
		t.Fatal(err)
	}

	now := shanghai(9, 9, 0)
	ch := &recorder{}
	reports := notice.BillingReports(s, phrase.Locale{Lang: phrase.LangEN}, "https://kashi.example")
	week, n, err := notice.SendWeeklyReports(ctx, s, []notify.Channel{ch}, mondays9(t), reports, now, quiet())
	if err != nil || week != "2026-W10" || n != 3 {
		t.Fatalf("SendWeeklyReports = %q, %d, %v; want 2026-W10 to 3 projects", week, n, err)
	}
	held := map[string]string{"vision": "20.00", "nlp": "5.00", "speech": "3.00"}
	var projects []string
	texts := map[string]bool{}
	for _, m := range ch.got {
		projects = append(projects, m.Project)
		texts[m.Text] = true
		if !strings.Contains(m.Title, m.Project) {
			t.Errorf("title %q does not name %s", m.Title, m.Project)
		}
		if want := "Project " + m.Project + ", week 2026-W10 (2026-03-02 – 2026-03-08): " + held[m.Project] + " card-hours held"; !strings.HasPrefix(m.Text, want) {
			t.Errorf("%s's message = %q, want it to begin %q", m.Project, m.Text, want)
		}
	}
	slices.Sort(projects)
	if diff := cmp.Diff([]string{"nlp", "speech", "vision"}, projects); diff != "" || len(texts) != 3 {
		t.Errorf("messages of %v, %d different texts; want one per project, none alike (-want +got):\n%s", projects, len(texts), diff)
	}
	// In-app, the lead of the three gets three notifications that tell their projects apart.
	notes, err := s.Notifications(ctx, lead.ID, 10)
	if err != nil {
		t.Fatal(err)
	}
	var weekly []models.Notification
	for _, note := range notes {
		if note.Kind == notice.KindWeeklyReport {
			weekly = append(weekly, note)
		}
	}
	byProject, err := s.NoteProjects(ctx, weekly)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, note := range weekly {
		p := byProject[note.ID]
		if seen[p] || !strings.HasPrefix(note.Message, "Project "+p+", week 2026-W10") || !strings.Contains(note.Message, held[p]+" card-hours held") {
			t.Errorf("lead's weekly notification about %q = %q, want its own project and figures once", p, note.Message)
		}
		seen[p] = true
	}
	if len(weekly) != 3 || len(seen) != 3 {
		t.Errorf("lead has %d weekly notifications about %v, want 3 about vision, nlp and speech", len(weekly), seen)
	}

	r, err := billing.WeekReport(ctx, s, "2026-W10", nil, now)
	if err != nil {
		t.Fatal(err)
	}
	var nodes []string
	for _, u := range r.Nodes {
		nodes = append(nodes, u.Key)
	}
	slices.Sort(nodes)
	if diff := cmp.Diff([]string{"gpu-big", "gpu-small"}, nodes); diff != "" {
		t.Errorf("the week's node rows (-want +got):\n%s", diff)
	}
}
