package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"kashi/api"
	"kashi/web/webtest"
)

// requestCounts reads kashi_http_request_seconds' count of each "METHOD route" series.
func requestCounts(t *testing.T) map[string]uint64 {
	t.Helper()
	families, err := prometheus.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]uint64{}
	for _, f := range families {
		if f.GetName() != "kashi_http_request_seconds" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			counts[labels["method"]+" "+labels["route"]] = m.GetHistogram().GetSampleCount()
		}
	}
	return counts
}

// Every answer's time is on /metrics under its route's pattern, whatever the ids in its path,
// an error's too; a path no route has is one series, "unmatched", whatever was asked.
func TestRequestSecondsByRoutePattern(t *testing.T) {
	s := webtest.NewServer(t)
	before := requestCounts(t)
	n := s.Register(webtest.Node("timed-1").Cards("NVIDIA A100-SXM4-80GB", 81920, 1))
	s.PostSamples(n.Token, webtest.Sample(webtest.UUIDOf("timed-1", 0), webtest.T0, 50, 1024))
	for _, path := range []string{"/api/v1/tasks/123456", "/api/v1/tasks/654321", "/no/such/page-1", "/no/such/page-2"} {
		if w := s.Get(path, webtest.Bearer(s.Token)...); w.Code != http.StatusNotFound {
			t.Fatalf("GET %s = %d, want 404", path, w.Code)
		}
	}
	after := requestCounts(t)
	for series, want := range map[string]uint64{
		"POST " + api.PathSamples: 1,
		"GET /api/v1/tasks/:id":   2,
		"GET unmatched":           2,
	} {
		if got := after[series] - before[series]; got != want {
			t.Errorf("%s observed %d times, want %d (all: %v)", series, got, want, after)
		}
	}
	for series := range after {
		if strings.Contains(series, "123456") || strings.Contains(series, "page-1") {
			t.Errorf("series %q carries a path asked, not a route's pattern", series)
		}
	}
}
