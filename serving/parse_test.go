package serving

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// page parses one testdata page.
func page(t testing.TB, name string) []Snapshot {
	t.Helper()
	f, err := os.Open("../testdata/serving/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	snaps, err := Parse(f)
	if err != nil {
		t.Fatalf("Parse(%s): %v", name, err)
	}
	return snaps
}

// summary is what TestParse compares: the scalars and each histogram's count (nil → -1).
type summary struct {
	Server                                Server
	Model                                 string
	Requests, Prompt, Generation, Running float64
	TTFTCount, E2ECount, QueueCount       int64
}

func summarize(ss []Snapshot) []summary {
	count := func(h *Histogram) int64 {
		if h == nil {
			return -1
		}
		return int64(h.Count())
	}
	var out []summary
	for _, s := range ss {
		out = append(out, summary{s.Server, s.Model, s.Requests, s.PromptTokens, s.GenerationTokens, s.Running,
			count(s.TTFT), count(s.E2E), count(s.QueueWait)})
	}
	return out
}

func TestParse(t *testing.T) {
	const llama, deepseek = "meta-llama/Llama-3.1-8B-Instruct", "deepseek-ai/DeepSeek-R1-Distill-Qwen-32B"
	tests := map[string]struct {
		page string
		want []summary
	}{
		// vLLM: requests summed over finished_reason (8600+380+20); no queue-time histogram on this page.
		"vllm": {"vllm-a-0.txt", []summary{{VLLM, "Qwen/Qwen2.5-7B-Instruct", 9000, 4123456, 2345678, 11, 9000, 9000, -1}}},
		// SGLang: two models on one page, each its own snapshot, sorted by model name.
		"sglang": {"sglang.txt", []summary{
			{SGLang, deepseek, 212, 88111, 95020, 3, 212, 212, -1},
			{SGLang, llama, 3107, 1503220, 411002, 7, 3107, 3107, -1},
		}},
		// SGLang's queue time (sglang:queue_time_seconds, its scheduler's histogram in
		// python/sglang/srt/metrics/collector.py), and the same page in the sglang_*
		// spelling (names without the colon, as exporters and relabelling write them).
		"sglang queue time": {"sglang-queue.txt", []summary{{SGLang, "Qwen/Qwen2.5-14B-Instruct", 1290, 640512, 201877, 5, 1290, 1290, 1290}}},
		"sglang_ spelling":  {"sglang-underscore.txt", []summary{{SGLang, "Qwen/Qwen2.5-14B-Instruct", 1290, 640512, 201877, 5, 1290, 1290, 1290}}},
		// TGI: requests from tgi_request_success (not tgi_request_count), tokens from the
		// histograms' sums, no TTFT, the queue wait kept.
		"tgi": {"tgi.txt", []summary{{TGI, "", 1284, 602391, 231044, 12, -1, 1284, 1284}}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, summarize(page(t, tt.page))); diff != "" {
				t.Errorf("Parse(%s) (-want +got):\n%s", tt.page, diff)
			}
		})
	}
}

func TestParseRequestsFallBack(t *testing.T) {
	tests := map[string]struct {
		page string
		want float64
	}{
		"tgi without tgi_request_success counts tgi_request_count": {
			"# TYPE tgi_request_count counter\ntgi_request_count 7\n", 7},
		"sglang without num_requests counts the e2e histogram": {
			"# TYPE sglang:e2e_request_latency_seconds histogram\n" +
				"sglang:e2e_request_latency_seconds_bucket{le=\"1.0\",model_name=\"m\"} 2\n" +
				"sglang:e2e_request_latency_seconds_bucket{le=\"+Inf\",model_name=\"m\"} 5\n" +
				"sglang:e2e_request_latency_seconds_count{model_name=\"m\"} 5\n" +
				"sglang:e2e_request_latency_seconds_sum{model_name=\"m\"} 6.5\n", 5},
		"a counter typed without _total": {
			"# TYPE vllm:request_success counter\nvllm:request_success_total{model_name=\"m\"} 3\n", 3},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := Parse(strings.NewReader(tt.page))
			if err != nil || len(got) != 1 || got[0].Requests != tt.want {
				t.Errorf("Parse = %+v, %v; want one snapshot with %v requests", got, err, tt.want)
			}
		})
	}
}

// TestParseVLLMQueueTime: vLLM's queue-time histogram (newer versions) is the QueueWait.
func TestParseVLLMQueueTime(t *testing.T) {
	got, err := Parse(strings.NewReader("# TYPE vllm:request_queue_time_seconds histogram\n" +
		"vllm:request_queue_time_seconds_bucket{le=\"0.3\",model_name=\"m\"} 4\n" +
		"vllm:request_queue_time_seconds_bucket{le=\"+Inf\",model_name=\"m\"} 6\n" +
		"vllm:request_queue_time_seconds_count{model_name=\"m\"} 6\n" +
		"vllm:request_queue_time_seconds_sum{model_name=\"m\"} 2.5\n"))
	if err != nil || len(got) != 1 || got[0].QueueWait.Count() != 6 || got[0].QueueWait.Sum != 2.5 || got[0].TTFT != nil {
		t.Errorf("Parse = %+v, %v; want model m with a queue wait of 6 observations summing 2.5", got, err)
	}
}

func TestParseRefuses(t *testing.T) {
	tests := map[string]struct {
		page, want string
	}{
		"not the text format": {"<html>", "metrics page"},
		"negative counter":    {"vllm:prompt_tokens_total{model_name=\"m\"} -4\n", "vllm:prompt_tokens_total"},
		"NaN gauge":           {"sglang:num_running_reqs NaN\n", "sglang:num_running_reqs"},
		"buckets going down": {"# TYPE tgi_request_duration histogram\n" +
			"tgi_request_duration_bucket{le=\"1\"} 5\ntgi_request_duration_bucket{le=\"2\"} 3\n" +
			"tgi_request_duration_bucket{le=\"+Inf\"} 5\ntgi_request_duration_count 5\ntgi_request_duration_sum 3\n", "go down"},
		"count unlike +Inf": {"# TYPE tgi_request_duration histogram\n" +
			"tgi_request_duration_bucket{le=\"+Inf\"} 5\ntgi_request_duration_count 6\ntgi_request_duration_sum 3\n", "differs"},
		"a summary where a histogram is meant": {"# TYPE vllm:e2e_request_latency_seconds summary\n" +
			"vllm:e2e_request_latency_seconds{quantile=\"0.5\"} 1\nvllm:e2e_request_latency_seconds_count 1\n" +
			"vllm:e2e_request_latency_seconds_sum 1\n", "want a histogram"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := Parse(strings.NewReader(tt.page))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse = %+v, %v; want an error containing %q", got, err, tt.want)
			}
		})
	}
}
