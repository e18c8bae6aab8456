package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// metricName matches a Kashi metric name in a PromQL expression or a Go string literal.
var metricName = regexp.MustCompile(`kashi_[a-z0-9_]*[a-z0-9]`)

// exportedMetrics lists the metric names Kashi's code defines: the "kashi_…" string literals
// of its non-test Go files.
func exportedMetrics(t *testing.T) map[string]bool {
	t.Helper()
	lit := regexp.MustCompile(`"(kashi_[a-z0-9_]+)"`)
	out := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		b, err := os.ReadFile(path)
		for _, m := range lit.FindAllStringSubmatch(string(b), -1) {
			out[m[1]] = true
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkNames reports the metric names in expr that Kashi does not export; a histogram's
// _bucket, _sum and _count series count as its name.
func checkNames(t *testing.T, where, expr string, exported map[string]bool) {
	t.Helper()
	for _, name := range metricName.FindAllString(expr, -1) {
		base := name
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			base = strings.TrimSuffix(base, suffix)
		}
		if !exported[name] && !exported[base] {
			t.Errorf("%s: %s names %s, which Kashi does not export", where, expr, name)
		}
	}
}

// gaugeUse matches a Kashi series in an expression with what precedes it, up to the bracket
// that opens its aggregation if any.
var gaugeUse = regexp.MustCompile(`(\w+(?:\s+by\s*\([^)]*\))?\s*\(\s*)?(kashi_[a-z0-9_]*[a-z0-9])`)

// checkReplicas reports the state gauges of expr not taken by max (or min) over replicas:
// every replica serves the same gauges, so a sum or a bare series counts each as often as
// replicas run. Counters (_total) and histograms (_bucket) count events on one replica each
// and build info is per replica, so they may be summed.
func checkReplicas(t *testing.T, where, expr string) {
	t.Helper()
	for _, m := range gaugeUse.FindAllStringSubmatch(expr, -1) {
		name := m[2]
		if strings.HasSuffix(name, "_total") || strings.HasSuffix(name, "_bucket") || name == "kashi_build_info" {
			continue
		}
		if agg := strings.Fields(m[1] + " ")[0]; !strings.HasPrefix(agg, "max") && !strings.HasPrefix(agg, "min") {
			t.Errorf("%s: %s takes %s without max by: replicas' gauges would add up", where, expr, name)
		}
	}
}

// TestGrafanaDashboard loads deploy/grafana-dashboard.json and checks that every panel
// queries something, every expression names metrics Kashi exports, filters by the instance
// variable and never adds up replicas' gauges.
func TestGrafanaDashboard(t *testing.T) {
	b, err := os.ReadFile("deploy/grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Title      string
		Templating struct{ List []struct{ Name string } }
		Panels     []struct {
			Title   string
			Targets []struct{ Expr string }
		}
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatalf("dashboard is not valid JSON: %v", err)
	}
	if dash.Title == "" || len(dash.Panels) == 0 {
		t.Fatalf("dashboard %q has %d panels, want a title and panels", dash.Title, len(dash.Panels))
	}
	if !slices.ContainsFunc(dash.Templating.List, func(v struct{ Name string }) bool { return v.Name == "instance" }) {
		t.Error("dashboard has no instance variable")
	}
	exported := exportedMetrics(t)
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, q := range p.Targets {
			if !metricName.MatchString(q.Expr) {
				t.Errorf("panel %q: %q names no Kashi metric", p.Title, q.Expr)
			}
			checkNames(t, "panel "+p.Title, q.Expr, exported)
			checkReplicas(t, "panel "+p.Title, q.Expr)
			if !strings.Contains(q.Expr, `instance=~"$instance"`) {
				t.Errorf("panel %q: %q does not filter by $instance", p.Title, q.Expr)
			}
		}
	}
}

// TestPrometheusRules checks that the expressions of deploy/prometheus-rules.yml name metrics
// Kashi exports and never add up replicas' gauges, then the file with `promtool check rules`
// and its unit tests, deploy/prometheus-rules.test.yml, with `promtool test rules` (skipped
// when promtool is absent).
func TestPrometheusRules(t *testing.T) {
	b, err := os.ReadFile("deploy/prometheus-rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	exported := exportedMetrics(t)
	for line := range strings.Lines(string(b)) {
		if expr, ok := strings.CutPrefix(strings.TrimSpace(line), "expr:"); ok {
			checkNames(t, "rule", expr, exported)
			checkReplicas(t, "rule", expr)
		}
	}
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not installed (Debian package prometheus)")
	}
	if out, err := exec.Command(promtool, "check", "rules", "deploy/prometheus-rules.yml").CombinedOutput(); err != nil {
		t.Errorf("promtool check rules: %v\n%s", err, out)
	}
	if out, err := exec.Command(promtool, "test", "rules", "deploy/prometheus-rules.test.yml").CombinedOutput(); err != nil {
		t.Errorf("promtool test rules: %v\n%s", err, out)
	}
}
