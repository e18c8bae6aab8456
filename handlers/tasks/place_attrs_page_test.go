package tasks_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"kashi/models"
)

// qAttrsFleet is two 4-card A100 nodes whose pool states NVLink within a node and no
// network between nodes, and an 8-card task of vision on them, larger than a node.
func qAttrsFleet(q *qEnv) models.Task {
	q.t.Helper()
	ctx := context.Background()
	if _, err := q.store.EnsureProject(ctx, "vision", qT0.Add(-time.Hour)); err != nil {
		q.t.Fatal(err)
	}
	q.qRegister("qa-a100-1", "a100", "NVIDIA A100-SXM4-80GB", 81920, 4)
	q.qRegister("qa-a100-2", "a100", "NVIDIA A100-SXM4-80GB", 81920, 4)
	if _, err := q.store.SavePoolConfig(ctx, "a100", models.PoolConfig{Provider: "static", Spec: "A100-80G", GPUsPerNode: 4,
		IntraNodeLink: models.LinkNVLink, IntraNodeGBytesS: 600, InterNodeLink: models.LinkNone, SharedStorageMBps: 2000},
		"admin", "", qT0.Add(-time.Hour)); err != nil {
		q.t.Fatal(err)
	}
	return q.qCreate(models.NewTask{Project: "vision", Name: "big", GPUs: 8, Spec: "A100-80G", DataReady: true}, qT0.Add(-time.Minute))
}

// TestQueuePageNamesWhatThePoolLacks: the queue page says, in both languages, that a task
// larger than a node waits because its pool has no network between nodes, and shows beside
// the free cards what the pool states.
func TestQueuePageNamesWhatThePoolLacks(t *testing.T) {
	q := newQEnv(t)
	big := qAttrsFleet(q)
	for lang, want := range map[string][2]string{
		"en":    {"Larger than a node, and the A100-80G pools have no network between nodes", "NVLink 600 GB/s between cards · no network between nodes · shared storage 2,000 MB/s"},
		"zh-CN": {"任务大于一个节点，而 A100-80G 资源池的节点间没有互联", "卡间 NVLink 600 GB/s · 节点间无互联 · 共享存储 2,000 MB/s"},
	} {
		doc := qDoc(t, q.qGet("/queue", "Accept-Language", lang))
		reason := doc.Find(`[data-testid="queue-row"][data-task-id="` + qID(big.ID) + `"] [data-testid="reason"]`)
		if got := strings.TrimSpace(reason.Text()); !strings.HasPrefix(got, want[0]) || !reason.HasClass("r-blocked") {
			t.Errorf("%s: the big task's reason = %q (class %q), want it to begin %q", lang, got, reason.AttrOr("class", ""), want[0])
		}
		attrs := doc.Find(`[data-testid="capacity-attrs"][data-spec="A100-80G"]`)
		if got := strings.TrimSpace(attrs.Text()); got != want[1] || attrs.AttrOr("data-pool", "") != "a100" {
			t.Errorf("%s: the A100 pool's attributes beside its free cards = %q, want %q", lang, got, want[1])
		}
		for _, name := range []string{"min_inter_node_gbps", "min_storage_mbps", "allow_no_interconnect"} {
			if doc.Find(`form[data-testid="task-form"] input[name="`+name+`"]`).Length() != 1 {
				t.Errorf("%s: the submit form has no input %s", lang, name)
			}
		}
	}
}

// TestQueueFormAsksOfPools: the submit form takes the minimums and the allowance, refuses a
// minimum out of range naming it in the page's language, and the task's page says what it
// asks.
func TestQueueFormAsksOfPools(t *testing.T) {
	q := newQEnv(t)
	qAttrsFleet(q)
	form := qForm()
	form.Set("specs", "A100-80G")
	form.Set("gpus", "8")
	form.Set("min_inter_node_gbps", "-5")
	w := q.qPostForm("/queue/tasks", form, "Accept-Language", "zh-CN")
	if got := strings.TrimSpace(qDoc(t, w).Find("#err-min_inter_node_gbps").Text()); w.Code != http.StatusUnprocessableEntity || !strings.Contains(got, "应为 0 到 204800 Gb/s") {
		t.Errorf("a minimum of -5 = %d %q, want 422 naming its range in Chinese", w.Code, got)
	}
	form.Set("min_inter_node_gbps", "")
	form.Set("min_storage_mbps", "many")
	w = q.qPostForm("/queue/tasks", form)
	if got := strings.TrimSpace(qDoc(t, w).Find("#err-min_storage_mbps").Text()); w.Code != http.StatusUnprocessableEntity || got == "" {
		t.Errorf("a storage minimum of %q = %d with no problem shown, want 422 naming it", "many", w.Code)
	}
	form.Set("min_storage_mbps", "1500")
	form.Set("allow_no_interconnect", "on")
	if w := q.qPostForm("/queue/tasks", form); w.Code != http.StatusSeeOther {
		t.Fatalf("POST /queue/tasks = %d, want 303:\n%s", w.Code, w.Body)
	}
	rows, err := q.store.Tasks(context.Background(), models.TaskFilter{Limit: 1})
	if err != nil || len(rows) != 1 || rows[0].MinStorageMBps != 1500 || rows[0].MinInterNodeGbps != 0 || !rows[0].AllowNoInterconnect {
		t.Fatalf("stored = %+v, %v; want 1,500 MB/s, no network minimum, allowed", rows, err)
	}
	for lang, want := range map[string]string{"en": "storage reads ≥ 1,500 MB/smay run across nodes without a network",
		"zh-CN": "存储读吞吐 ≥ 1,500 MB/s可在节点间无互联时跨节点运行"} {
		page := qDoc(t, q.qGet("/tasks/"+qID(rows[0].ID), "Accept-Language", lang))
		if got := strings.TrimSpace(page.Find(`[data-testid="task-needs"]`).Text()); strings.Join(strings.Fields(got), " ") != strings.Join(strings.Fields(want), " ") {
			t.Errorf("%s: the task page says it asks %q, want %q", lang, got, want)
		}
	}
}
