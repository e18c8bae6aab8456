package tasks_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"kashi/models"
)

// TestQueueShowsServiceWaitingOnItsCap: a project whose quota lets its services hold one
// card submits a service of two replicas; after a tick one replica runs, the other waits in
// the service lane with the reason, on the page in both languages and in the API. The cap
// is set through the admin's quota API.
func TestQueueShowsServiceWaitingOnItsCap(t *testing.T) {
	q := newQEnv(t)
	ctx := context.Background()
	p, err := q.store.EnsureProject(ctx, "serve", qT0.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	q.qRegister("qa-a100-1", "a100", "NVIDIA A100-SXM4-80GB", 81920, 4)
	body := `{"spec":"","max_gpus":4,"max_service_gpus":1,"budget_card_hours":1000,"starts_at":"2026-03-01T00:00:00Z","ends_at":"2026-04-01T00:00:00Z"}`
	if w := q.qRequest(http.MethodPost, "/api/v1/projects/"+qID(p.ID)+"/quotas", "application/json", body); w.Code != http.StatusOK ||
		!strings.Contains(w.Body.String(), `"max_service_gpus":1`) {
		t.Fatalf("POST quota = %d %s, want 200 with the service cap", w.Code, w.Body)
	}
	bad := strings.Replace(body, `"max_service_gpus":1`, `"max_service_gpus":5`, 1)
	if w := q.qRequest(http.MethodPost, "/api/v1/projects/"+qID(p.ID)+"/quotas", "application/json", bad); w.Code != http.StatusUnprocessableEntity ||
		!strings.Contains(w.Body.String(), "max_service_gpus") {
		t.Errorf("POST quota with a cap over the limit = %d %s, want 422 naming max_service_gpus", w.Code, w.Body)
	}
	nt := models.NewTask{Project: "serve", Name: "chat", GPUs: 1, Spec: "A100-80G", Queue: models.QueueLong, DataReady: true,
		Kind: models.TaskKindService, Service: models.ServiceSpec{Model: "qwen", Replicas: 2, MetricsPort: 8000}}
	first := q.qCreate(nt, qT0.Add(-time.Minute))
	if _, err := q.loop.RunOnce(ctx, qT0); err != nil {
		t.Fatal(err)
	}

	var got qQueueJSON
	if err := json.Unmarshal(q.qGet("/api/v1/queue").Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Tasks) != 1 || got.Tasks[0].Lane != models.QueueService || got.Tasks[0].Reason != "quota" || got.Tasks[0].ID == first.ID {
		t.Fatalf("queue = %+v, want the second replica alone, waiting on quota in the service lane", got.Tasks)
	}
	for lang, want := range map[string]string{"en": "services hold all the GPUs", "zh-CN": "在线服务已占满"} {
		doc := qDoc(t, q.qGet("/queue", "Accept-Language", lang))
		lane := doc.Find(`[data-testid="queue-lane"][data-lane="service"]`)
		if n := lane.Find(`[data-testid="queue-row"]`).Length(); n != 1 || !strings.Contains(lane.Find(`[data-testid="reason"]`).Text(), want) {
			t.Errorf("%s: service lane has %d rows, reason %q; want the waiting replica with %q", lang, n, lane.Find(`[data-testid="reason"]`).Text(), want)
		}
	}
}
