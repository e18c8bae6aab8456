package models_test

import (
	"context"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// Use by processes of no task is stored with the samples that show it, from each GPU's newest
// reading: a batch whose newest reading no longer shows the process clears it, a resent older
// batch or a refused one changes nothing, and the alert opens once and resolves when it ends.
func TestIngestSamplesRecordsUnmanagedUse(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n := registerNode(t, s, "u1", "a100", 1)
		jupyter := models.ProcessReading{PID: 300, UsedMemoryMiB: 2048, Unmanaged: true, User: "bob", Command: "jupyter"}
		at := func(sec int, procs ...models.ProcessReading) models.Reading {
			r := sample("u1-gpu0", t0.Add(time.Duration(sec)*time.Second), 30, 4096)
			r.Processes = procs
			return r
		}
		ingest := func(what string, batch ...models.Reading) {
			t.Helper()
			if _, err := s.IngestSamples(ctx, n.ID, batch, t0.Add(time.Minute)); err != nil {
				t.Fatalf("IngestSamples(%s) = %v", what, err)
			}
		}
		check := func(what string, wantMiB int64, wantSince time.Time, wantOpen int) {
			t.Helper()
			rows, err := s.BoardGPUs(ctx, models.BoardFilter{})
			if err != nil {
				t.Fatal(err)
			}
			g := rows[0]
			gotSince := time.Time{}
			if g.UnmanagedSince != nil {
				gotSince = *g.UnmanagedSince
			}
			if g.UnmanagedMiB != wantMiB || !gotSince.Equal(wantSince) {
				t.Errorf("after %s: unmanaged %d MiB since %v, want %d since %v", what, g.UnmanagedMiB, gotSince, wantMiB, wantSince)
			}
			alerts, err := s.Alerts(ctx, models.AlertFilter{OpenOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			open, count := 0, 0
			for _, a := range alerts {
				if a.Kind == models.AlertUnmanaged {
					open, count = open+1, a.Count
				}
			}
			if open != wantOpen || open == 1 && count != 1 {
				t.Errorf("after %s: %d open unmanaged alerts (count %d), want %d counted once", what, open, count, wantOpen)
			}
		}

		ingest("a batch ending without the process", at(1, jupyter), at(2))
		check("a batch ending without the process", 0, time.Time{}, 0)
		ingest("the process seen", at(3, jupyter))
		check("the process seen", 2048, t0.Add(3*time.Second), 1)
		ingest("the process seen again", at(4, jupyter))
		check("the process seen again", 2048, t0.Add(3*time.Second), 1)
		ingest("an old batch resent", at(1))
		check("an old batch resent", 2048, t0.Add(3*time.Second), 1)
		bad := at(5)
		bad.UtilPct = 101
		if _, err := s.IngestSamples(ctx, n.ID, []models.Reading{bad}, t0.Add(time.Minute)); err == nil {
			t.Fatal("IngestSamples(util 101) = nil, want refused")
		}
		check("a refused batch", 2048, t0.Add(3*time.Second), 1)
		ingest("the process gone", at(6))
		check("the process gone", 0, time.Time{}, 0)
	})
}
