package serving

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestHistogramJSONRoundTrip(t *testing.T) {
	h, err := NewHistogram([]float64{0.1, 0.5}, []uint64{3, 7, 9}, 2.5)
	if err != nil {
		t.Fatal(err)
	}
	h.Narrowed = true
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"bounds":[0.1,0.5],"counts":[3,7,9],"sum":2.5,"narrowed":true}`; string(b) != want {
		t.Errorf("Marshal = %s, want %s", b, want)
	}
	var back Histogram
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(h, &back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestNewHistogramRefusesImpossible(t *testing.T) {
	for name, tc := range map[string]struct {
		bounds []float64
		counts []uint64
	}{
		"counts one short":  {[]float64{0.1, 0.5}, []uint64{3, 7}},
		"counts go down":    {[]float64{0.1, 0.5}, []uint64{3, 2, 9}},
		"bounds not rising": {[]float64{0.5, 0.1}, []uint64{3, 7, 9}},
		"an infinite bound": {[]float64{0.1, math.Inf(1)}, []uint64{3, 7, 9}},
	} {
		if _, err := NewHistogram(tc.bounds, tc.counts, 1); err == nil {
			t.Errorf("%s: NewHistogram(%v, %v) = nil error, want one", name, tc.bounds, tc.counts)
		}
	}
}
