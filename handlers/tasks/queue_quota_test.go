package tasks_test

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/api"
	"kashi/models"
	"kashi/web/webtest"
)

// TestQueueQuotaWait: a task waiting on its project's concurrent limit is expected to start
// when the project's own running task is expected to end, and says which limit and by how
// much: in the queue API (the limit's figures, the reason in English) and on the queue page
// in both languages.
func TestQueueQuotaWait(t *testing.T) {
	cfg := webtest.TestCfg()
	cfg.Location = time.UTC
	s := webtest.NewServerOn(t, webtest.NewStore(t), cfg)
	s.Projects("vision")
	member := s.Member("alice", "vision")
	s.Register(webtest.Node("n1").Cards(webtest.A100Name, webtest.A100MiB, 4))
	p, _ := s.Store.ProjectByName(context.Background(), "vision")
	if _, err := s.Store.SetQuota(context.Background(), "admin", models.Quota{ProjectID: p.ID, Spec: "A100-80G", MaxGPUs: 2,
		BudgetCardHours: 1000, StartsAt: webtest.T0.AddDate(0, -1, 0), EndsAt: webtest.T0.AddDate(0, 1, 0)}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	// The holder runs 1.5 h by its estimate (3 card-hours on 2 cards), from an hour ago.
	held := s.Create(webtest.Task("holder").GPUs(2).Spec("A100-80G").Est(3).Ready(), webtest.T0.Add(-time.Hour))
	s.Place(held, webtest.T0.Add(-time.Hour), webtest.UUIDOf("n1", 0), webtest.UUIDOf("n1", 1))
	waits := s.Create(webtest.Task("more").GPUs(1).Spec("A100-80G").Ready(), webtest.T0)

	var q api.Queue
	if err := json.Unmarshal(s.Get("/api/v1/queue", webtest.Bearer(member)...).Body.Bytes(), &q); err != nil {
		t.Fatal(err)
	}
	var got *api.QueueEntry
	for i := range q.Tasks {
		if q.Tasks[i].ID == waits.ID {
			got = &q.Tasks[i]
		}
	}
	if got == nil {
		t.Fatalf("task %d is not in the queue: %+v", waits.ID, q.Tasks)
	}
	if diff := cmp.Diff(&api.QuotaWait{Spec: "A100-80G", Limit: 2, InUse: 2, Needs: 1}, got.Quota); diff != "" {
		t.Errorf("queue entry's quota (-want +got):\n%s", diff)
	}
	if want := webtest.T0.Add(30 * time.Minute); got.ETAP50 == nil || !got.ETAP50.Equal(want) || got.ETAP90 == nil || got.ETAP90.Before(want) {
		t.Errorf("queue entry's ETAs = %v, %v; want p50 %v and a p90 no earlier", got.ETAP50, got.ETAP90, want)
	}
	if got.Reason != api.ReasonQuota || got.ReasonDetail != "concurrent-limit" ||
		got.ReasonText != "Quota A100-80G of vision: 2 of 2 in use, needs 1 more" {
		t.Errorf("queue entry's reason = %s, %s, %q", got.Reason, got.ReasonDetail, got.ReasonText)
	}

	for lang, want := range map[string][2]string{
		"en":    {"Quota A100-80G of vision: 2 of 2 in use, needs 1 more", "in ~30m"},
		"zh-CN": {"配额不足：A100-80G（vision）已用 2 / 2 张，还差 1 张", "约 30分钟后"},
	} {
		doc := webtest.Parse(t, s.Get("/queue", append(webtest.Bearer(member), "Accept-Language", lang)...).Body.String())
		row := doc.Find(`[data-testid="queue-row"][data-task-id="` + strconv.FormatInt(waits.ID, 10) + `"]`)
		if got := strings.TrimSpace(row.Find(`[data-testid="reason"]`).Text()); got != want[0] {
			t.Errorf("%s: reason = %q, want %q", lang, got, want[0])
		}
		if got := strings.TrimSpace(row.Find(`.p50`).Text()); got != want[1] {
			t.Errorf("%s: p50 = %q, want %q", lang, got, want[1])
		}
	}
}
