package serving

import (
	"cmp"
	"slices"
)

// Server is the kind of model server a page came from.
type Server string

// The servers whose metric names Parse understands (see the package doc for the mapping).
const (
	VLLM   Server = "vllm"
	SGLang Server = "sglang"
	TGI    Server = "tgi"
)

// Snapshot is what one model's server said on one page, or (after Delta and Merge) what
// happened between two scrapes. Counters are totals since the server started; Running is a
// gauge. A histogram the server does not expose is nil.
type Snapshot struct {
	Server           Server
	Model            string
	Requests         float64
	PromptTokens     float64
	GenerationTokens float64
	Running          float64
	TTFT             *Histogram
	E2E              *Histogram
	QueueWait        *Histogram
}

func (s Snapshot) histograms() []*Histogram { return []*Histogram{s.TTFT, s.E2E, s.QueueWait} }

// Restarted reports whether cur cannot follow prev on one running server: a counter or a
// histogram bucket went down, a histogram's bounds changed, or one disappeared.
func Restarted(prev, cur Snapshot) bool {
	if cur.Requests < prev.Requests || cur.PromptTokens < prev.PromptTokens || cur.GenerationTokens < prev.GenerationTokens {
		return true
	}
	ph, ch := prev.histograms(), cur.histograms()
	for i := range ph {
		if ph[i].wentDown(ch[i]) {
			return true
		}
	}
	return false
}

// Delta is what happened on one replica between two scrapes: cur minus prev, counter by
// counter and bucket by bucket. When the server restarted in between (Restarted), everything
// it counted since is cur itself, so cur is the delta. Running is cur's.
func Delta(prev, cur Snapshot) Snapshot {
	if Restarted(prev, cur) {
		return cur.clone()
	}
	return Snapshot{
		Server:           cur.Server,
		Model:            cur.Model,
		Requests:         cur.Requests - prev.Requests,
		PromptTokens:     cur.PromptTokens - prev.PromptTokens,
		GenerationTokens: cur.GenerationTokens - prev.GenerationTokens,
		Running:          cur.Running,
		TTFT:             prev.TTFT.minus(cur.TTFT),
		E2E:              prev.E2E.minus(cur.E2E),
		QueueWait:        prev.QueueWait.minus(cur.QueueWait),
	}
}

// Merge adds several replicas' snapshots of one model (normally their Deltas over the same
// window): counters and Running summed, histograms added bucket by bucket (on the bounds
// they share, with Narrowed set, when their bounds differ). Server and Model are the first's.
func Merge(replicas ...Snapshot) Snapshot {
	var out Snapshot
	var ttft, e2e, queue []*Histogram
	for i, r := range replicas {
		if i == 0 {
			out.Server, out.Model = r.Server, r.Model
		}
		out.Requests += r.Requests
		out.PromptTokens += r.PromptTokens
		out.GenerationTokens += r.GenerationTokens
		out.Running += r.Running
		ttft, e2e, queue = append(ttft, r.TTFT), append(e2e, r.E2E), append(queue, r.QueueWait)
	}
	out.TTFT, out.E2E, out.QueueWait = mergeHistograms(ttft...), mergeHistograms(e2e...), mergeHistograms(queue...)
	return out
}

func (s Snapshot) clone() Snapshot {
	s.TTFT, s.E2E, s.QueueWait = s.TTFT.clone(), s.E2E.clone(), s.QueueWait.clone()
	return s
}

func sortSnapshots(ss []Snapshot) {
	slices.SortFunc(ss, func(a, b Snapshot) int {
		return cmp.Or(cmp.Compare(a.Server, b.Server), cmp.Compare(a.Model, b.Model))
	})
}
