package serving

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// role is what one metric family means for a Snapshot.
type role int

const (
	roleTTFT role = iota
	roleE2E
	roleQueueWait
	roleRequests
	roleRequestCount // TGI's tgi_request_count: requests when tgi_request_success is absent
	rolePromptTokens
	roleGenerationTokens
	rolePromptTokensSum     // a histogram of tokens per request: its sum is the total
	roleGenerationTokensSum // likewise
	roleRunning
)

type meaning struct {
	server Server
	role   role
}

// names maps a metric family name, without a counter's `_total`, to its meaning (the table
// in the package doc).
var names = map[string]meaning{
	"vllm:time_to_first_token_seconds":   {VLLM, roleTTFT},
	"vllm:e2e_request_latency_seconds":   {VLLM, roleE2E},
	"vllm:request_queue_time_seconds":    {VLLM, roleQueueWait},
	"vllm:request_success":               {VLLM, roleRequests},
	"vllm:prompt_tokens":                 {VLLM, rolePromptTokens},
	"vllm:generation_tokens":             {VLLM, roleGenerationTokens},
	"vllm:num_requests_running":          {VLLM, roleRunning},
	"sglang:time_to_first_token_seconds": {SGLang, roleTTFT},
	"sglang:e2e_request_latency_seconds": {SGLang, roleE2E},
	"sglang:num_requests":                {SGLang, roleRequests},
	"sglang:prompt_tokens":               {SGLang, rolePromptTokens},
	"sglang:generation_tokens":           {SGLang, roleGenerationTokens},
	"sglang:num_running_reqs":            {SGLang, roleRunning},
	"sglang:queue_time_seconds":          {SGLang, roleQueueWait},
	"tgi_request_duration":               {TGI, roleE2E},
	"tgi_request_queue_duration":         {TGI, roleQueueWait},
	"tgi_request_success":                {TGI, roleRequests},
	"tgi_request_count":                  {TGI, roleRequestCount},
	"tgi_request_input_length":           {TGI, rolePromptTokensSum},
	"tgi_request_generated_tokens":       {TGI, roleGenerationTokensSum},
	"tgi_batch_current_size":             {TGI, roleRunning},
}

// Parse reads a model server's page in the Prometheus text format into one Snapshot per
// server kind and model, sorted by both. Metrics it does not know are ignored; a page that
// breaks the format or holds an impossible value is refused with an error naming the metric.
func Parse(r io.Reader) ([]Snapshot, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("serving: metrics page: %w", err)
	}
	type key struct {
		server Server
		model  string
	}
	type building struct {
		snap                     Snapshot
		hists                    map[role][]*Histogram
		requests, requestCount   float64
		hasRequests, hasReqCount bool
	}
	byModel := map[key]*building{}
	familyNames := make([]string, 0, len(families))
	for name := range families {
		familyNames = append(familyNames, name)
	}
	slices.Sort(familyNames) // the same page always sums in the same order
	for _, name := range familyNames {
		f := families[name]
		m, known := names[canonicalName(name)]
		if !known {
			continue
		}
		for _, metric := range f.GetMetric() {
			k := key{m.server, modelOf(metric)}
			b := byModel[k]
			if b == nil {
				b = &building{snap: Snapshot{Server: k.server, Model: k.model}, hists: map[role][]*Histogram{}}
				byModel[k] = b
			}
			switch m.role {
			case roleTTFT, roleE2E, roleQueueWait, rolePromptTokensSum, roleGenerationTokensSum:
				h, err := histogramOf(f.GetType(), metric)
				if err != nil {
					return nil, fmt.Errorf("serving: %s: %w", name, err)
				}
				b.hists[m.role] = append(b.hists[m.role], h)
			default:
				v, err := scalarOf(metric)
				if err != nil {
					return nil, fmt.Errorf("serving: %s: %w", name, err)
				}
				switch m.role {
				case roleRequests:
					b.requests, b.hasRequests = b.requests+v, true
				case roleRequestCount:
					b.requestCount, b.hasReqCount = b.requestCount+v, true
				case rolePromptTokens:
					b.snap.PromptTokens += v
				case roleGenerationTokens:
					b.snap.GenerationTokens += v
				case roleRunning:
					b.snap.Running += v
				}
			}
		}
	}
	out := make([]Snapshot, 0, len(byModel))
	for _, b := range byModel {
		s := &b.snap
		s.TTFT, s.E2E, s.QueueWait = mergeHistograms(b.hists[roleTTFT]...), mergeHistograms(b.hists[roleE2E]...), mergeHistograms(b.hists[roleQueueWait]...)
		if h := mergeHistograms(b.hists[rolePromptTokensSum]...); h != nil {
			s.PromptTokens += h.Sum
		}
		if h := mergeHistograms(b.hists[roleGenerationTokensSum]...); h != nil {
			s.GenerationTokens += h.Sum
		}
		switch {
		case b.hasRequests:
			s.Requests = b.requests
		case b.hasReqCount:
			s.Requests = b.requestCount
		default:
			s.Requests = float64(s.E2E.Count())
		}
		out = append(out, *s)
	}
	sortSnapshots(out)
	return out, nil
}

// canonicalName is a family's name in the names table: without a counter's `_total`, and
// SGLang's `sglang_` spelling (the names without their colon) read as `sglang:`.
func canonicalName(name string) string {
	name = strings.TrimSuffix(name, "_total")
	if rest, ok := strings.CutPrefix(name, "sglang_"); ok {
		return "sglang:" + rest
	}
	return name
}

// modelOf is the series' model: label model_name (vLLM, SGLang), else model.
func modelOf(m *dto.Metric) string {
	var alt string
	for _, l := range m.GetLabel() {
		switch l.GetName() {
		case "model_name":
			return l.GetValue()
		case "model":
			alt = l.GetValue()
		}
	}
	return alt
}

// scalarOf is a counter's, gauge's or untyped sample's value, which must be finite and not
// negative (a counter written as `x_total` under `# TYPE x counter` parses as untyped).
func scalarOf(m *dto.Metric) (float64, error) {
	var v float64
	switch {
	case m.Counter != nil:
		v = m.GetCounter().GetValue()
	case m.Gauge != nil:
		v = m.GetGauge().GetValue()
	case m.Untyped != nil:
		v = m.GetUntyped().GetValue()
	default:
		return 0, fmt.Errorf("want a counter or gauge")
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, fmt.Errorf("value %v", v)
	}
	return v, nil
}

// histogramOf reads one histogram series; a missing +Inf bucket is the sample count.
func histogramOf(t dto.MetricType, m *dto.Metric) (*Histogram, error) {
	if t != dto.MetricType_HISTOGRAM || m.Histogram == nil {
		return nil, fmt.Errorf("want a histogram, got %s", t)
	}
	buckets := slices.Clone(m.GetHistogram().GetBucket())
	slices.SortStableFunc(buckets, func(a, b *dto.Bucket) int { return cmp.Compare(a.GetUpperBound(), b.GetUpperBound()) })
	h := &Histogram{Sum: m.GetHistogram().GetSampleSum()}
	for _, b := range buckets {
		h.Bounds = append(h.Bounds, b.GetUpperBound())
		h.Counts = append(h.Counts, b.GetCumulativeCount())
	}
	count := m.GetHistogram().GetSampleCount()
	if len(h.Bounds) == 0 || !math.IsInf(h.Bounds[len(h.Bounds)-1], 1) {
		h.Bounds, h.Counts = append(h.Bounds, math.Inf(1)), append(h.Counts, count)
	} else if h.Count() != count {
		return nil, fmt.Errorf("count %d differs from the +Inf bucket's %d", count, h.Count())
	}
	if err := h.check(); err != nil {
		return nil, err
	}
	return h, nil
}
