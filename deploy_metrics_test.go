package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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

// TestGrafanaDashboard loads deploy/grafana-dashboard.json and checks that every panel
// queries something and every expression names metrics Kashi exports.
func TestGrafanaDashboard(t *testing.T) {
	b, err := os.ReadFile("deploy/grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Title  string
		Panels []struct {
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
		}
	}
}

// TestPrometheusRules checks deploy/prometheus-rules.yml with `promtool check rules`
// (skipped when promtool is absent) and that its expressions name metrics Kashi exports.
func TestPrometheusRules(t *testing.T) {
	b, err := os.ReadFile("deploy/prometheus-rules.yml")
	if err != nil {
		t.Fatal(err)
	}
	exported := exportedMetrics(t)
	for line := range strings.Lines(string(b)) {
		if expr, ok := strings.CutPrefix(strings.TrimSpace(line), "expr:"); ok {
			checkNames(t, "rule", expr, exported)
		}
	}
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not installed (Debian package prometheus)")
	}
	if out, err := exec.Command(promtool, "check", "rules", "deploy/prometheus-rules.yml").CombinedOutput(); err != nil {
		t.Errorf("promtool check rules: %v\n%s", err, out)
	}
}
