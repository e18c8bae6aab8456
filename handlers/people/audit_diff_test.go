package people

import (
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
	en := phrase.Locale{Lang: phrase.LangEN}
	tests := map[string]struct {
		before, after string
		want          []peopleview.AuditChange
	}{
		"a field changed": {`{"ID":1,"MaxGPUs":8,"UpdatedAt":"2026-03-01T00:00:00Z"}`, `{"ID":1,"MaxGPUs":12,"UpdatedAt":"2026-03-02T00:00:00Z"}`,
			[]peopleview.AuditChange{{Field: "max_gpus", Before: "8", After: "12"}}},
		"money and time": {`{"OverflowRateFen":0,"EndsAt":"2026-03-31T16:00:00Z"}`, `{"OverflowRateFen":2550,"EndsAt":"2026-04-30T16:00:00Z"}`,
			[]peopleview.AuditChange{{Field: "ends_at", Before: "2026-04-01 01:00:00", After: "2026-05-01 01:00:00"},
				{Field: "overflow_rate_fen", Before: "¥0.00", After: "¥25.50"}}},
		"new: empty fields left out": {`null`, `{"name":"speech","tags":"","max_gpus":0}`,
			[]peopleview.AuditChange{{Field: "name", Before: "—", After: "speech"}}},
		"nested": {`{"reclaim":{"IdleS":0}}`, `{"reclaim":{"IdleS":600}}`,
			[]peopleview.AuditChange{{Field: "reclaim.idle_s", Before: "0", After: "600"}}},
		"not an object": {``, `[1,2]`, []peopleview.AuditChange{{Field: "value", Before: "—", After: "1, 2"}}},
		"not JSON":      {`{`, `{"a":true}`, []peopleview.AuditChange{{Field: "a", Before: "—", After: "yes"}}},
	}
	for name, tc := range tests {
		if diff := cmp.Diff(tc.want, auditChanges(en, tc.before, tc.after, tokyo)); diff != "" {
			t.Errorf("%s: auditChanges (-want +got):\n%s", name, diff)
		}
	}
}
