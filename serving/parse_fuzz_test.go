package serving

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse: any page is either refused with an error, or gives snapshots whose counters are
// finite and not negative, whose histograms are well formed with percentiles inside their
// bounds, and which Delta and Merge handle without a restart or a lost count.
func FuzzParse(f *testing.F) {
	pages, err := filepath.Glob("../testdata/serving/*.txt")
	if err != nil || len(pages) == 0 {
		f.Fatalf("seed pages: %v, %v", pages, err)
	}
	for _, p := range pages {
		page, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(page)
	}
	for _, s := range []string{
		"# TYPE vllm:time_to_first_token_seconds histogram\nvllm:time_to_first_token_seconds_bucket{le=\"-1\"} 1\n" +
			"vllm:time_to_first_token_seconds_bucket{le=\"NaN\"} 2\nvllm:time_to_first_token_seconds_count 2\n",
		"# TYPE tgi_request_duration histogram\ntgi_request_duration_bucket{le=\"1e308\"} 18446744073709551615\n" +
			"tgi_request_duration_count 18446744073709551615\ntgi_request_duration_sum 1e308\n",
		"vllm:prompt_tokens_total{model_name=\"\xff\"} 1\n", "sglang:num_running_reqs +Inf\n", "tgi_request_count 1e400\n", "", "<html>",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, page []byte) {
		snaps, err := Parse(bytes.NewReader(page))
		if err != nil {
			return
		}
		for _, s := range snaps {
			for _, v := range []float64{s.Requests, s.PromptTokens, s.GenerationTokens, s.Running} {
				if math.IsNaN(v) || v < 0 {
					t.Fatalf("Parse = %+v: counter %v", s, v)
				}
			}
			for _, h := range s.histograms() {
				if h == nil {
					continue
				}
				if err := h.check(); err != nil {
					t.Fatalf("Parse = histogram %+v: %v", h, err)
				}
				for _, q := range []float64{0, 0.5, 0.95, 0.99, 1} {
					v, ok := h.Quantile(q)
					if ok && (math.IsNaN(v) || v > h.Bounds[len(h.Bounds)-2] || v < min(0, h.Bounds[0])) {
						t.Fatalf("Quantile(%v) = %v outside the bounds %v", q, v, h.Bounds)
					}
				}
			}
			if Restarted(s, s) {
				t.Fatalf("Restarted(s, s) = true for %+v", s)
			}
			if d := Delta(s, s); d.TTFT.Count() != 0 || d.E2E.Count() != 0 || d.Requests != 0 {
				t.Fatalf("Delta(s, s) = %+v, want nothing happened", d)
			}
			if m := Merge(s, s); m.E2E.Count() != 2*s.E2E.Count() && s.E2E.Count() < math.MaxUint64/2 {
				t.Fatalf("Merge(s, s) e2e count = %d, want %d", m.E2E.Count(), 2*s.E2E.Count())
			}
		}
	})
}
