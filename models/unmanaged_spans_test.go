package models_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestUnmanagedSpans: a GPU's use by a process of no task is kept as spans from the first
// reading that shows it to the first that does not; a resent batch changes nothing, a use
// that starts again within 30 s extends the span, and a use going on is an open span.
func TestUnmanagedSpans(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n := registerNode(t, s, "n1", "a100", 1)
		uuid := "n1-gpu0"
		at := func(sec int, mib int64) models.Reading {
			r := models.Reading{UUID: uuid, TS: t0.Add(time.Duration(sec) * time.Second)}
			if mib > 0 {
				r.Processes = []models.ProcessReading{{PID: 300, UsedMemoryMiB: mib, Unmanaged: true, User: "bo", Command: "python -m jupyter"}}
			}
			return r
		}
		record := func(rs ...models.Reading) {
			t.Helper()
			if _, err := s.IngestSamples(ctx, n.ID, rs, t0.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
		openAlerts := func() int {
			as, err := s.Alerts(ctx, models.AlertFilter{OpenOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			return len(as)
		}
		spans := func() []models.UnmanagedSpan {
			t.Helper()
			got, err := s.UnmanagedSpans(ctx, t0, t0.Add(time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			return got
		}
		ignoreID := cmpopts.IgnoreFields(models.UnmanagedSpan{}, "ID")
		nodes, _ := s.Nodes(ctx)
		gpu := nodes[0].GPUs[0].ID
		sec := func(x int) int64 { return t0.Unix() + int64(x) }

		batch1 := []models.Reading{at(20, 2048), at(0, 0), at(10, 2048)} // out of order
		record(batch1...)
		if diff := cmp.Diff([]models.UnmanagedSpan{{GPUID: gpu, Start: sec(10)}}, spans(), ignoreID); diff != "" || openAlerts() != 1 {
			t.Errorf("after the use began: spans (-want +got):\n%s; %d open alerts, want 1", diff, openAlerts())
		}
		record(at(30, 0))
		record(batch1...) // resent from the spool
		want := []models.UnmanagedSpan{{GPUID: gpu, Start: sec(10), End: sec(30)}}
		if diff := cmp.Diff(want, spans(), ignoreID); diff != "" || openAlerts() != 0 {
			t.Errorf("after the use ended and a resend: spans (-want +got):\n%s; %d open alerts, want 0", diff, openAlerts())
		}
		record(at(50, 512), at(90, 0), at(500, 1024))
		want = []models.UnmanagedSpan{{GPUID: gpu, Start: sec(10), End: sec(90)}, {GPUID: gpu, Start: sec(500)}}
		if diff := cmp.Diff(want, spans(), ignoreID); diff != "" {
			t.Errorf("after a use within 30 s and a new one: spans (-want +got):\n%s", diff)
		}
		if got, _ := s.UnmanagedSpans(ctx, t0.Add(100*time.Second), t0.Add(400*time.Second)); len(got) != 0 {
			t.Errorf("UnmanagedSpans() between the uses = %+v, want none", got)
		}
	})
}
