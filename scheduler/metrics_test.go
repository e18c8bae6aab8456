package scheduler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"kashi/models"
)

// TestObserveWaits checks that each placed task's wait since submit lands in its lane's
// histogram, and that tasks left waiting are not observed.
func TestObserveWaits(t *testing.T) {
	t0 := time.Date(2025, 3, 3, 9, 0, 0, 0, time.UTC)
	count := func(lane string) (uint64, float64) {
		h := queueWait.WithLabelValues(lane).(prometheus.Histogram)
		m := &dto.Metric{}
		if err := h.Write(m); err != nil {
			t.Fatal(err)
		}
		return m.Histogram.GetSampleCount(), m.Histogram.GetSampleSum()
	}
	shortN, shortSum := count(models.QueueShort)
	longN, longSum := count(models.QueueLong)
	snap := Snapshot{Pending: []Pending{
		{ID: 1, Queue: models.QueueShort, SubmittedAt: t0.Add(-90 * time.Second)},
		{ID: 2, Queue: models.QueueLong, SubmittedAt: t0.Add(-time.Hour)},
		{ID: 3, Queue: models.QueueLong, SubmittedAt: t0.Add(-2 * time.Hour)},
	}}
	observeWaits(snap, Plan{Placements: []Placement{{TaskID: 1}, {TaskID: 2}}}, t0)
	n1, s1 := count(models.QueueShort)
	n2, s2 := count(models.QueueLong)
	got := []float64{float64(n1 - shortN), s1 - shortSum, float64(n2 - longN), s2 - longSum}
	if diff := cmp.Diff([]float64{1, 90, 1, 3600}, got); diff != "" {
		t.Errorf("observeWaits: (count, sum) per lane (-want +got):\n%s", diff)
	}
	if n := testutil.CollectAndCount(queueWait); n != len(models.Lanes) {
		t.Errorf("wait histograms = %d, want one per lane (%d)", n, len(models.Lanes))
	}
}
