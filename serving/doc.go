// Package serving reads the Prometheus pages of the model servers people run (vLLM, SGLang,
// Hugging Face TGI) into one Snapshot per model, and does exact arithmetic on them: the
// difference between two scrapes of one replica (Delta), the sum of several replicas'
// differences (Merge), and percentiles from the merged buckets (Histogram.Quantile), the way
// Prometheus's histogram_quantile computes them. Histograms are added bucket by bucket, never
// averaged. The agent reports each replica's Delta between two scrapes, the store Merges the
// replicas' deltas into a service's 5-minute rollups, and pages read percentiles from them.
// Scrape fetches a page with a timeout and a bound on its size. It imports nothing of Kashi.
//
// The metric names it understands (a counter may be written with or without `_total`):
//
//	Snapshot field    vLLM                              SGLang                              TGI
//	model             label model_name (else model)     label model_name (else model)       none: TGI serves one model; the page's model is "" unless a model label is set
//	TTFT              vllm:time_to_first_token_seconds  sglang:time_to_first_token_seconds  not exposed (nil), see QueueWait
//	E2E               vllm:e2e_request_latency_seconds  sglang:e2e_request_latency_seconds  tgi_request_duration
//	QueueWait         vllm:request_queue_time_seconds   sglang:queue_time_seconds           tgi_request_queue_duration
//	Requests          vllm:request_success_total, else  sglang:num_requests_total, else     tgi_request_success, else tgi_request_count
//	                  the E2E histogram's count         the E2E histogram's count
//	PromptTokens      vllm:prompt_tokens_total          sglang:prompt_tokens_total          tgi_request_input_length's sum
//	GenerationTokens  vllm:generation_tokens_total      sglang:generation_tokens_total      tgi_request_generated_tokens's sum
//	Running           vllm:num_requests_running         sglang:num_running_reqs             tgi_batch_current_size
//
// SGLang's names are read in both spellings: `sglang:` and `sglang_` (the name without its
// colon, as some exporters and relabelling rules write it).
//
// TGI (through v3.3, its last release) has no time-to-first-token histogram: its first token
// is the queue wait, then the prefill batch (tgi_batch_inference_duration{method="prefill"},
// a per-batch figure, not per request). A percentile of a sum cannot be computed from the
// percentiles or buckets of its parts, so TTFT stays nil for TGI rather than an invented
// figure; QueueWait (tgi_request_queue_duration) is kept as its lower bound.
//
// Series of one model that differ in other labels (vLLM's finished_reason or engine) are
// added together. A page that breaks the format, or whose histogram counts go
// down from one bucket to the next, is refused with an error naming the metric.
package serving
