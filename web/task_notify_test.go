package web_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"kashi/models"
)

// TestTaskNotifications: a task's owner is told when it starts and when it fails, fails to
// start or ends; each notification links to the task. Someone else hears nothing.
func TestTaskNotifications(t *testing.T) {
	s := newServer(t)
	s.projects("vision")
	alice := s.member("alice", "vision")
	bob := s.member("bob", "vision")
	n := s.register(node("n1").cards(a100Name, a100MiB, 2))
	ctx := context.Background()
	run := s.create(task("train").ready(), t0)
	s.place(run, t0, uuidOf("n1", 0))
	never := s.create(task("broken").ready(), t0)
	s.place(never, t0, uuidOf("n1", 1))
	report := func(id int64, r models.TaskReport) {
		t.Helper()
		if err := s.store.ReportTaskStatus(ctx, n.ID, id, r, t0.Add(time.Minute)); err != nil {
			t.Fatalf("ReportTaskStatus(%d, %s): %v", id, r.State, err)
		}
	}
	report(run.ID, models.TaskReport{State: models.ReportRunning, TS: t0.Add(time.Minute)})
	report(run.ID, models.TaskReport{State: models.ReportExited, ExitCode: 2, TS: t0.Add(2 * time.Minute)})
	report(never.ID, models.TaskReport{State: models.ReportFailedToStart, Message: "no such file", TS: t0.Add(time.Minute)})

	notes := func(tok string) []string {
		var out []string
		parse(t, s.get("/notifications", bearer(tok)...).Body.String()).Find(`[data-testid=notification]`).Each(func(_ int, n *goquery.Selection) {
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
