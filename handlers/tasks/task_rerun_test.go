package tasks_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"kashi/api"
	"kashi/models"
	"kashi/web/webtest"
)

// rerunTask is a task of vision whose first attempt ran on n1 and was lost with it after a
// checkpoint, and whose second runs on n2 (waits for cards, unless placeAgain); member is a
// member of vision and other of nlp.
func rerunTask(t *testing.T, placeAgain bool) (s *webtest.Server, id, member, other string) {
	t.Helper()
	ctx := context.Background()
	s = webtest.NewServer(t)
	s.Projects("vision", "nlp")
	member, other = s.Member("alice", "vision"), s.Member("bob", "nlp")
	n1 := s.Register(webtest.Node("n1").Cards(webtest.A100Name, webtest.A100MiB, 1))
	s.Register(webtest.Node("n2").Cards(webtest.A100Name, webtest.A100MiB, 1))
	tk := s.Create(webtest.Task("pretrain").Ready().Attempts(3), webtest.T0.Add(-3*time.Hour))
	s.Place(tk, webtest.T0.Add(-3*time.Hour), webtest.UUIDOf("n1", 0))
	cp := webtest.T0.Add(-2 * time.Hour)
	r := models.TaskReport{State: models.ReportRunning, TS: cp, CheckpointAt: &cp, Checkpoint: "s3://ckpt/pretrain/step-900"}
	if err := s.Store.ReportTaskStatus(ctx, n1.ID, tk.ID, r, cp); err != nil {
		t.Fatal(err)
	}
	seen := webtest.T0.Add(-90 * time.Minute)
	if _, err := s.Store.IngestSamples(ctx, n1.ID, webtest.Readings([]api.Sample{webtest.Sample(webtest.UUIDOf("n1", 0), seen, 90, 1024)}), seen); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Store.MarkLostNodes(ctx, []int64{n1.ID}, webtest.T0.Add(-time.Hour), webtest.T0.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if placeAgain {
		s.Place(tk, webtest.T0.Add(-time.Hour), webtest.UUIDOf("n2", 0))
	}
	s.SetNow(webtest.T0)
	return s, strconv.FormatInt(tk.ID, 10), member, other
}

// TestTaskPageAttempts: the page of a task rerun after its node was lost says which attempt
// runs of how many and its last checkpoint, and lists its attempts: the first on n1, lost
// with its node after its checkpoint, with the card-hours lost; the second on n2, current;
// in English and Chinese, to its project. Others see the attempts without why they ended nor
// where the checkpoint is.
func TestTaskPageAttempts(t *testing.T) {
	s, id, member, other := rerunTask(t, true)
	doc := webtest.Parse(t, s.Get("/tasks/"+id, webtest.Bearer(member)...).Body.String())
	if got := strings.TrimSpace(doc.Find(`[data-testid=task-attempt]`).Text()); got != "2 of 3" {
		t.Errorf("attempt fact = %q, want 2 of 3", got)
	}
	if got := doc.Find(`[data-testid=task-checkpoint]`).Text(); !strings.Contains(got, "s3://ckpt/pretrain/step-900") {
		t.Errorf("checkpoint fact = %q, want its place", got)
	}
	rows := doc.Find(`[data-testid=task-attempts] [data-testid=task-attempt-row]`)
	if rows.Length() != 2 {
		t.Fatalf("attempt rows = %d, want 2", rows.Length())
	}
	first, second := rows.Eq(0), rows.Eq(1)
	text := func(s *goquery.Selection, id string) string {
		return strings.TrimSpace(s.Find(`[data-testid=` + id + `]`).Text())
	}
	if first.AttrOr("data-ending", "") != models.EndLost || text(first, "attempt-nodes") != "on n1" ||
		!strings.HasPrefix(text(first, "attempt-ending"), "node n1 lost (last seen ") ||
		!strings.Contains(text(first, "attempt-checkpoint"), "s3://ckpt/pretrain/step-900") ||
		text(first, "attempt-lost") != "0.50 card-hours lost to the rerun" {
		t.Errorf("first attempt = %q", first.Text())
	}
	if text(second, "attempt-nodes") != "on n2" || text(second, "attempt-ending") != "current" ||
		!strings.HasPrefix(text(second, "attempt-span"), "running since ") {
		t.Errorf("second attempt = %q", second.Text())
	}
	var events []string
	doc.Find(`[data-testid=task-event]`).Each(func(_ int, e *goquery.Selection) { events = append(events, e.Find(".why").Text()) })
	if !strings.Contains(strings.Join(events, "|"), "queued again for attempt 2 of 3; node n1 lost (last seen ") {
		t.Errorf("events = %q, want the requeue in words", events)
	}

	zh := webtest.Parse(t, s.Get("/tasks/"+id, append(webtest.Bearer(member), "Accept-Language", "zh-CN")...).Body.String())
	if got := strings.TrimSpace(zh.Find(`[data-testid=task-attempt]`).Text()); got != "第 2 次，共 3 次" {
		t.Errorf("Chinese attempt fact = %q", got)
	}
	if got := zh.Find(`[data-testid=task-attempts] [data-testid=attempt-ending]`).First().Text(); !strings.Contains(got, "节点 n1 失联") {
		t.Errorf("Chinese first attempt's ending = %q", got)
	}

	out := webtest.Parse(t, s.Get("/tasks/"+id, webtest.Bearer(other)...).Body.String())
	if out.Find(`[data-testid=task-attempt-row]`).Length() != 2 || strings.Contains(out.Text(), "s3://ckpt") ||
		strings.TrimSpace(out.Find(`[data-testid=attempt-ending]`).First().Text()) != "lost with its node" {
		t.Errorf("an outsider's attempts: %q", out.Find(`[data-testid=task-attempts]`).Text())
	}

	type attempt struct {
		Attempt    int      `json:"attempt"`
		Current    bool     `json:"current"`
		Nodes      []string `json:"nodes"`
		Ending     string   `json:"ending"`
		Checkpoint string   `json:"checkpoint"`
		LostS      int64    `json:"lost_s"`
	}
	w := s.Get("/api/v1/tasks/"+id, webtest.Bearer(member)...)
	detail := webtest.Decode[struct {
		Attempts []attempt `json:"attempts"`
		Attempt  int       `json:"attempt"`
	}](t, w)
	if w.Code != http.StatusOK || detail.Attempt != 2 || len(detail.Attempts) != 2 || detail.Attempts[0].Ending != "lost" ||
		detail.Attempts[0].LostS != 1800 || detail.Attempts[0].Checkpoint != "s3://ckpt/pretrain/step-900" || !detail.Attempts[1].Current ||
		detail.Attempts[1].Nodes[0] != "n2" {
		t.Errorf("GET /api/v1/tasks/%s attempts = %+v", id, detail)
	}
}

// TestQueueHidesCheckpoints: a task queued again for its rerun shows where its checkpoint is
// to its project in the queue's API, not to others.
func TestQueueHidesCheckpoints(t *testing.T) {
	s, id, member, other := rerunTask(t, false)
	entry := func(tok string) map[string]any {
		q := webtest.Decode[map[string]any](t, s.Get("/api/v1/queue", webtest.Bearer(tok)...))
		for _, e := range q["tasks"].([]any) {
			if e := e.(map[string]any); webtest.IDStr(int64(e["id"].(float64))) == id {
				return e
			}
		}
		t.Fatalf("task %s is not in the queue", id)
		return nil
	}
	if got := entry(member); got["last_checkpoint"] != "s3://ckpt/pretrain/step-900" || got["attempt"] != 2.0 {
		t.Errorf("the queue's entry for vision's member = %v, want its checkpoint and attempt 2", got)
	}
	if got, ok := entry(other)["last_checkpoint"]; ok {
		t.Errorf("the queue's entry for nlp's member shows the checkpoint %v", got)
	}
}

// TestTaskFormAttempts: the submit form takes the task's attempts (1 to 10, refused beside
// the input otherwise) and its rerun on failure.
func TestTaskFormAttempts(t *testing.T) {
	q := newQEnv(t)
	qFleet(q)
	form := qForm()
	form.Set("max_attempts", "11")
	w := q.qPostForm("/queue/tasks", form)
	if problem := qDoc(t, w).Find(`[data-testid=field-error][data-field=max_attempts]`).Text(); w.Code != http.StatusUnprocessableEntity ||
		!strings.Contains(problem, "between 1 and 10") {
		t.Fatalf("POST /queue/tasks with 11 attempts = %d, problem %q; want 422 beside max_attempts", w.Code, problem)
	}
	form.Set("max_attempts", "3")
	form.Set("rerun_on_failure", "on")
	if w := q.qPostForm("/queue/tasks", form); w.Code != http.StatusSeeOther {
		t.Fatalf("POST /queue/tasks = %d %s, want 303", w.Code, w.Body)
	}
	rows, err := q.store.Tasks(context.Background(), models.TaskFilter{Limit: 1})
	if err != nil || len(rows) != 1 || rows[0].MaxAttempts != 3 || !rows[0].RerunOnFailure {
		t.Errorf("task from the form = %+v, %v; want 3 attempts, rerun on failure", rows, err)
	}
}
