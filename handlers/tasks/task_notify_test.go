package tasks_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/web/webtest"
)

// TestTaskNotifications: a task's owner is told when it starts and when it fails, fails to
// start or ends; each notification links to the task. Someone else hears nothing.
func TestTaskNotifications(t *testing.T) {
	s := webtest.NewServer(t)
	s.Projects("vision")
	alice := s.Member("alice", "vision")
	bob := s.Member("bob", "vision")
	n := s.Register(webtest.Node("n1").Cards(webtest.A100Name, webtest.A100MiB, 2))
	ctx := context.Background()
	run := s.Create(webtest.Task("train").Ready(), webtest.T0)
	s.Place(run, webtest.T0, webtest.UUIDOf("n1", 0))
	never := s.Create(webtest.Task("broken").Ready(), webtest.T0)
	s.Place(never, webtest.T0, webtest.UUIDOf("n1", 1))
	report := func(id int64, r models.TaskReport) {
		t.Helper()
		if err := s.Store.ReportTaskStatus(ctx, n.ID, id, r, webtest.T0.Add(time.Minute)); err != nil {
			t.Fatalf("ReportTaskStatus(%d, %s): %v", id, r.State, err)
		}
	}
	report(run.ID, models.TaskReport{State: models.ReportRunning, TS: webtest.T0.Add(time.Minute)})
	report(run.ID, models.TaskReport{State: models.ReportExited, ExitCode: 2, TS: webtest.T0.Add(2 * time.Minute)})
	report(never.ID, models.TaskReport{State: models.ReportFailedToStart, Message: "no such file", TS: webtest.T0.Add(time.Minute)})

	notes := func(tok string) []string {
		var out []string
		webtest.Parse(t, s.Get("/notifications", webtest.Bearer(tok)...).Body.String()).Find(`[data-testid=notification]`).Each(func(_ int, n *goquery.Selection) {
			out = append(out, n.AttrOr("data-kind", "")+" "+n.Find(`[data-testid=task-link]`).AttrOr("href", ""))
		})
		return out
	}
	id := func(tk models.Task) string { return "/tasks/" + strconv.FormatInt(tk.ID, 10) }
	want := []string{models.NoteTaskFailedToStart + " " + id(never), models.NoteTaskFailed + " " + id(run), models.NoteTaskStarted + " " + id(run)}
	if diff := cmp.Diff(want, notes(alice)); diff != "" {
		t.Errorf("alice's notifications (-want +got):\n%s", diff)
	}
	if got := notes(bob); len(got) != 0 {
		t.Errorf("bob's notifications = %v, want none", got)
	}
}

// TestNotificationsSpeakThePageLanguage: every kind of notification is written in the page's
// language from its key; the message stored for chat channels is not shown.
func TestNotificationsSpeakThePageLanguage(t *testing.T) {
	s := webtest.NewServer(t)
	s.Projects("vision")
	s.Member("alice", "vision")
	ctx := context.Background()
	vision, _ := s.Store.ProjectByName(ctx, "vision")
	tester, _ := s.Store.UserByName(ctx, "tester")
	if err := s.Store.SetMember(ctx, vision.ID, tester.ID, models.ProjectRoleMember); err != nil {
		t.Fatal(err)
	}
	for _, n := range []struct{ key, kind string }{
		{"idle-notice:7:1772400000", "idle-notice"}, {"reclaimed:8", "reclaimed"}, {"task/9/reclaimed", "reclaimed"}, {"request:3", "request-pending"},
		{"decided:4", "request-approved"}, {"quota-ends:1:2026-03-31:7", "quota-ends"}, {"budget:1:2026-03:80", "budget"},
	} {
		if _, err := s.Store.NotifyProject(ctx, vision.ID, n.key, n.kind, "English text for chat", webtest.T0); err != nil {
			t.Fatal(err)
		}
	}
	w := s.Get("/notifications", "Cookie", "kashi_lang=zh-CN")
	if strings.Contains(w.Body.String(), "English text for chat") {
		t.Error("the Chinese notifications page shows the English chat message")
	}
	var got []string
	webtest.Parse(t, w.Body.String()).Find(`[data-testid=notification] p`).Each(func(_ int, p *goquery.Selection) {
		got = append(got, strings.Join(strings.Fields(p.Text()), " "))
	})
	want := []string{"项目本月的一项预算已用 80%。", "项目的一项配额将于 2026-03-31 到期。", "你的配额申请 #4 已批准。",
		"配额申请 #3 等待你审批。", "它已被停止，闲置的卡已回收。 #9", "它已被停止，闲置的卡已回收。 #8", "它占用的卡一直闲置：保留，或现在释放。 #7"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("notifications (-want +got):\n%s", diff)
	}
}

// TestNotificationsNameTheirProject: a lead of two projects tells their reminders and task
// notices apart: each notification shows the project it is about.
func TestNotificationsNameTheirProject(t *testing.T) {
	s := webtest.NewServer(t)
	s.Projects("vision", "nlp")
	lead := s.MemberAs("li", "vision", models.ProjectRoleLead)
	ctx := context.Background()
	u, _ := s.Store.UserByName(ctx, "li")
	nlp, _ := s.Store.ProjectByName(ctx, "nlp")
	vision, _ := s.Store.ProjectByName(ctx, "vision")
	if err := s.Store.SetMember(ctx, nlp.ID, u.ID, models.ProjectRoleLead); err != nil {
		t.Fatal(err)
	}
	for _, p := range []models.Project{vision, nlp} {
		q, err := s.Store.SetQuota(ctx, "admin", models.Quota{ProjectID: p.ID, Spec: "A100-80G", MaxGPUs: 8, BudgetCardHours: 100,
			StartsAt: webtest.T0.Add(-time.Hour), EndsAt: webtest.T0.Add(5 * 24 * time.Hour)}, webtest.T0)
		if err != nil {
			t.Fatal(err)
		}
		key := "quota-ends:" + strconv.FormatInt(q.ID, 10) + ":2026-03-07:7"
		if _, err := s.Store.NotifyProject(ctx, p.ID, key, "quota-ends", "Project "+p.Name+": the quota ends", webtest.T0); err != nil {
			t.Fatal(err)
		}
	}
	alice := s.Member("alice", "vision")
	n := s.Register(webtest.Node("n1").Cards(webtest.A100Name, webtest.A100MiB, 1))
	run := s.Create(webtest.Task("train").Ready(), webtest.T0)
	s.Place(run, webtest.T0, webtest.UUIDOf("n1", 0))
	s.Store.ReportTaskStatus(ctx, n.ID, run.ID, models.TaskReport{State: models.ReportRunning, TS: webtest.T0}, webtest.T0)
	// The task is alice's; the lead is told only of the reminders, alice of her task's start.
	var got []string
	for _, tok := range []string{lead, alice} {
		webtest.Parse(t, s.Get("/notifications", webtest.Bearer(tok)...).Body.String()).Find(`[data-testid=notification]`).Each(func(_ int, n *goquery.Selection) {
			got = append(got, n.AttrOr("data-kind", "")+" "+n.Find(`[data-testid=note-project]`).Text())
		})
	}
	want := []string{"quota-ends nlp", "quota-ends vision", models.NoteTaskStarted + " vision"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("notifications of the lead, then alice (-want +got):\n%s", diff)
	}
}
