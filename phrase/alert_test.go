package phrase

import "testing"

// TestAlertSubject: what an alert is about reads in the page's language, as each raiser
// stores it; a node is named by its hostname when known; another subject is left as stored.
func TestAlertSubject(t *testing.T) {
	en, zh := Locale{Lang: LangEN}, Locale{Lang: LangZH}
	tests := map[string]struct {
		subject, pool, node string
		en, zh              string
	}{
		"a task's card":    {"task 12 on a100-3 GPU 5", "", "", "task #12 on a100-3 GPU 5", "任务 #12：a100-3 的 GPU 5"},
		"a service":        {"service 40", "", "", "service #40", "服务 #40"},
		"a GPU":            {"gpu GPU-1234", "", "", "GPU GPU-1234", "GPU GPU-1234"},
		"a node by name":   {"node 7", "", "a100-7", "node a100-7", "节点 a100-7"},
		"a node by id":     {"node 7", "", "", "node 7", "节点 7"},
		"a pool":           {"a100", "a100", "", "pool a100", "资源池 a100"},
		"a pool's machine": {"a100/sim-0004", "a100", "", "machine sim-0004 of pool a100", "机器 sim-0004（资源池 a100）"},
		"another":          {"g0", "", "", "g0", "g0"},
		"a pool named gpu": {"gpu x", "gpu x", "", "pool gpu x", "资源池 gpu x"},
	}
	for name, tc := range tests {
		if got := en.AlertSubject(tc.subject, tc.pool, tc.node); got != tc.en {
			t.Errorf("%s: en AlertSubject(%q) = %q, want %q", name, tc.subject, got, tc.en)
		}
		if got := zh.AlertSubject(tc.subject, tc.pool, tc.node); got != tc.zh {
			t.Errorf("%s: zh AlertSubject(%q) = %q, want %q", name, tc.subject, got, tc.zh)
		}
	}
}
