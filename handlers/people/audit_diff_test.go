package people

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/phrase"
	peopleview "kashi/views/people"
)

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{
		"MaxGPUs": "max_gpus", "ProjectID": "project_id", "OverflowRateFen": "overflow_rate_fen", "GPUsPerNode": "gpus_per_node",
		"UUID": "uuid", "APIToken": "api_token", "max_gpus": "max_gpus", "IdleS": "idle_s",
	} {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAuditChanges(t *testing.T) {
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	w := auditWords{l: phrase.Locale{Lang: phrase.LangEN}, zone: tokyo, users: map[int64]string{3: "member"}}
	tests := map[string]struct {
		before, after string
		want          []peopleview.AuditChange
	}{
		"a field changed": {`{"ID":1,"MaxGPUs":8,"UpdatedAt":"2026-03-01T00:00:00Z"}`, `{"ID":1,"MaxGPUs":12,"UpdatedAt":"2026-03-02T00:00:00Z"}`,
			[]peopleview.AuditChange{{Field: "max_gpus", Label: "GPUs at once", Before: "8", After: "12"}}},
		"money and time": {`{"OverflowRateFen":0,"EndsAt":"2026-03-31T16:00:00Z"}`, `{"OverflowRateFen":2550,"EndsAt":"2026-04-30T16:00:00Z"}`,
			[]peopleview.AuditChange{{Field: "ends_at", Label: "ends", Before: "2026-04-01 01:00:00", After: "2026-05-01 01:00:00"},
				{Field: "overflow_rate_fen", Label: "overflow rate", Before: "¥0.00", After: "¥25.50"}}},
		"new: empty fields left out": {`null`, `{"name":"speech","tags":"","max_gpus":0}`,
			[]peopleview.AuditChange{{Field: "name", Label: "name", Before: "—", After: "speech"}}},
		"nested": {`{"reclaim":{"IdleS":0}}`, `{"reclaim":{"IdleS":600}}`,
			[]peopleview.AuditChange{{Field: "reclaim.idle_s", Label: "reclaim · idle time before a notice", Before: "0s", After: "10m"}}},
		"not an object": {``, `[1,2]`, []peopleview.AuditChange{{Field: "value", Label: "value", Before: "—", After: "1, 2"}}},
		"not JSON":      {`{`, `{"a":true}`, []peopleview.AuditChange{{Field: "a", Label: "a", Before: "—", After: "yes"}}},
		"a request: its change in words, users by name": {``,
			`{"ID":1,"Kind":"limit","Change":"{\"max_gpus\":40}","RequestedBy":3,"DecidedBy":7,"State":"pending"}`,
			[]peopleview.AuditChange{{Field: "change.max_gpus", Label: "change asked · GPUs at once", Before: "—", After: "40"},
				{Field: "decided_by", Label: "decided by", Before: "—", After: "#7"},
				{Field: "kind", Label: "kind", Before: "—", After: "New GPU limit"},
				{Field: "requested_by", Label: "requested by", Before: "—", After: "member"},
				{Field: "state", Label: "state", Before: "—", After: "pending"}}},
		"tags, a pool's setting, a row, a percentage": {`{"tags":"cv","max_nodes":4,"request_id":3,"memory_high_pct":80}`,
			`{"tags":"cv,课题组 视觉","max_nodes":6,"request_id":3,"memory_high_pct":85.5}`,
			[]peopleview.AuditChange{{Field: "max_nodes", Label: "Max nodes", Before: "4", After: "6"},
				{Field: "memory_high_pct", Label: "Memory high mark", Before: "80%", After: "85.5%"},
				{Field: "tags", Label: "tags", Before: "cv", After: "cv, 课题组 视觉"}}},
		"a list of objects": {``, `{"mode":"per-task","size_classes":[{"price_fen":500,"name":"small","max_card_hours":10}]}`,
			[]peopleview.AuditChange{{Field: "mode", Label: "billing mode", Before: "—", After: "Per task"},
				{Field: "size_classes", Label: "size classes", Before: "—", After: "name small, up to card-hours 10, price ¥5.00"}}},
	}
	for name, tc := range tests {
		if diff := cmp.Diff(tc.want, w.changes(tc.before, tc.after)); diff != "" {
			t.Errorf("%s: changes (-want +got):\n%s", name, diff)
		}
	}
}

// Each subject the log's writers make reads as a sentence of the page's language, with a
// request's kind and every spec in words; one no pattern knows stays as stored. Every
// pattern has its sentence in the catalogs, and every sentence there a pattern.
func TestAuditSubjects(t *testing.T) {
	en := auditWords{l: phrase.Locale{Lang: phrase.LangEN}}
	zh := auditWords{l: phrase.Locale{Lang: phrase.LangZH}}
	for stored, want := range map[string][2]string{
		"login":                         {"sign-in", "登录"},
		"token 5 of alice":              {"API token #5 of alice", "API 令牌 #5（alice 的）"},
		"token laptop":                  {"API token laptop", "API 令牌 laptop"},
		"request 3: limit (all specs)":  {"request #3: New GPU limit, all specs", "申请 #3：新的卡数上限，全部卡型"},
		"quota A100-80G by request 3":   {"quota of A100-80G, by request #3", "A100-80G 配额（申请 #3）"},
		"task 42":                       {"task #42", "任务 #42"},
		"bill vision 2026-02":           {"bill of vision for 2026-02", "vision 的 2026-02 账单"},
		"reservation 2 by request 3":    {"booking #2, by request #3", "预约 #2（申请 #3）"},
		"node gpu-a1":                   {"node gpu-a1", "节点 gpu-a1"},
		"template train":                {"template train", "模板 train"},
		"something the patterns lack 7": {"something the patterns lack 7", "something the patterns lack 7"},
	} {
		if got := en.subject(stored); got != want[0] {
			t.Errorf("en subject(%q) = %q, want %q", stored, got, want[0])
		}
		if got := zh.subject(stored); got != want[1] {
			t.Errorf("zh subject(%q) = %q, want %q", stored, got, want[1])
		}
	}
	keys := map[string]bool{}
	for _, p := range auditSubjects {
		keys[phrase.AuditSubjectKeyPrefix+p.key] = true
		if !en.l.Has(phrase.AuditSubjectKeyPrefix + p.key) {
			t.Errorf("the catalogs lack %s%s", phrase.AuditSubjectKeyPrefix, p.key)
		}
	}
	for k := range en.l.Catalog() {
		if strings.HasPrefix(k, phrase.AuditSubjectKeyPrefix) && !keys[k] {
			t.Errorf("the catalogs' %s is no subject pattern's", k)
		}
	}
}
