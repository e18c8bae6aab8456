package models_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

func sample(uuid string, at time.Time, util int, memMiB int64) models.Reading {
	return models.Reading{UUID: uuid, TS: at, UtilPct: util, MemoryUsedMiB: memMiB, TempC: 40, PowerW: 100}
}

func TestIngestSamplesTimersAndIdempotency(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n := registerNode(t, s, "n1", "a100", 2)
		batch := []models.Reading{
			sample("n1-gpu0", t0, 90, 1000),
			sample("n1-gpu0", t0.Add(time.Minute), 3, 1000),     // idle from here
			sample("n1-gpu0", t0.Add(2*time.Minute), 2, 1000),   // still idle
			sample("n1-gpu1", t0.Add(time.Minute), 99, 80000),   // saturated
			sample("n1-gpu1", t0.Add(2*time.Minute), 97, 80000), // still saturated
		}
		res, err := s.IngestSamples(ctx, n.ID, batch, t0.Add(3*time.Minute))
		if err != nil || res.Accepted != 5 || res.Duplicates != 0 {
			t.Fatalf("IngestSamples = %+v, %v, want 5 accepted", res, err)
		}
		// The same batch again changes nothing.
		res, err = s.IngestSamples(ctx, n.ID, batch, t0.Add(3*time.Minute))
		if err != nil || res.Accepted != 0 || res.Duplicates != 5 {
			t.Fatalf("IngestSamples again = %+v, %v, want 5 duplicates", res, err)
		}
		gpus, err := s.BoardGPUs(ctx, models.BoardFilter{})
		if err != nil {
			t.Fatal(err)
		}
		g0, g1 := gpus[0], gpus[1]
		if g0.UtilPct != 2 || g0.IdleSince == nil || !g0.IdleSince.Equal(t0.Add(time.Minute)) {
			t.Errorf("gpu0 util %d idle since %v, want 2 and %v", g0.UtilPct, g0.IdleSince, t0.Add(time.Minute))
		}
		if g1.SaturatedSince == nil || !g1.SaturatedSince.Equal(t0.Add(time.Minute)) || g1.IdleSince != nil {
			t.Errorf("gpu1 saturated since %v idle since %v, want %v and nil", g1.SaturatedSince, g1.IdleSince, t0.Add(time.Minute))
		}
		// An older sample arriving late is stored but does not move the current reading back.
		if _, err := s.IngestSamples(ctx, n.ID, []models.Reading{sample("n1-gpu0", t0.Add(30*time.Second), 50, 5)}, t0.Add(3*time.Minute)); err != nil {
			t.Fatal(err)
		}
		gpus, _ = s.BoardGPUs(ctx, models.BoardFilter{})
		if gpus[0].UtilPct != 2 || gpus[0].IdleSince == nil {
			t.Errorf("late sample moved the reading: util %d idle %v", gpus[0].UtilPct, gpus[0].IdleSince)
		}
		// Busy again clears the idle timer.
		s.IngestSamples(ctx, n.ID, []models.Reading{sample("n1-gpu0", t0.Add(3*time.Minute), 60, 5)}, t0.Add(3*time.Minute))
		gpus, _ = s.BoardGPUs(ctx, models.BoardFilter{})
		if gpus[0].IdleSince != nil {
			t.Errorf("idle since %v after a busy sample, want nil", gpus[0].IdleSince)
		}
	})
}

func TestIngestSamplesRejectsBadInput(t *testing.T) {
	now := t0.Add(time.Hour)
	tests := map[string]struct {
		samples []models.Reading
		field   string
	}{
		"empty":          {nil, "samples"},
		"unknown gpu":    {[]models.Reading{sample("n1-gpu0", now, 1, 1), sample("nope", now, 1, 1)}, "samples[1].uuid"},
		"other node gpu": {[]models.Reading{sample("n2-gpu0", now, 1, 1)}, "samples[0].uuid"},
		"memory > total": {[]models.Reading{sample("n1-gpu0", now, 1, 81921)}, "samples[0].memory_used_mib"},
		"negative mem":   {[]models.Reading{sample("n1-gpu0", now, 1, -1)}, "samples[0].memory_used_mib"},
		"util > 100":     {[]models.Reading{sample("n1-gpu0", now, 101, 1)}, "samples[0].util_pct"},
		"future":         {[]models.Reading{sample("n1-gpu0", now.Add(time.Hour), 1, 1)}, "samples[0].ts"},
		"zero ts":        {[]models.Reading{sample("n1-gpu0", time.Time{}, 1, 1)}, "samples[0].ts"},
		"process memory": {[]models.Reading{{UUID: "n1-gpu0", TS: now, Processes: []models.ProcessReading{{PID: 1, UsedMemoryMiB: -5}}}}, "samples[0].processes[0].used_memory_mib"},
	}
	s := modelstest.SQLite(t, models.Options{})
	n1 := registerNode(t, s, "n1", "a100", 1)
	registerNode(t, s, "n2", "a100", 1)
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := s.IngestSamples(context.Background(), n1.ID, tc.samples, now)
			var fe *models.FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field {
				t.Fatalf("IngestSamples = %v, want FieldError on %q", err, tc.field)
			}
		})
	}
	gpus, _ := s.BoardGPUs(context.Background(), models.BoardFilter{})
	if gpus[0].SampledAt != nil {
		t.Errorf("a rejected batch changed the GPU: sampled at %v", gpus[0].SampledAt)
	}
}

func TestRollUp(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n := registerNode(t, s, "n1", "a100", 1)
		var batch []models.Reading
		// Two hours of samples every 30 s: util 0 in the first hour, 80 in the second.
		for i := 0; i < 240; i++ {
			util := 0
			if i >= 120 {
				util = 80
			}
			batch = append(batch, sample("n1-gpu0", t0.Add(time.Duration(i)*30*time.Second), util, int64(i)))
		}
		now := t0.Add(2 * time.Hour)
		if _, err := s.IngestSamples(ctx, n.ID, batch, now); err != nil {
			t.Fatal(err)
		}
		for range 2 { // twice: idempotent
			if err := s.RollUp(ctx, now, time.Hour); err != nil {
				t.Fatalf("RollUp = %v", err)
			}
		}
		gpus, _ := s.BoardGPUs(ctx, models.BoardFilter{})
		five, err := s.Rollups(ctx, gpus[0].ID, models.Rollup5m, t0, now)
		if err != nil || len(five) != 24 {
			t.Fatalf("5-minute rollups = %d, %v, want 24", len(five), err)
		}
		if five[0].N != 10 || five[0].NIdle != 10 || five[23].NActive != 10 || five[23].UtilMax != 80 {
			t.Errorf("rollups[0] = %+v, rollups[23] = %+v", five[0], five[23])
		}
		hours, err := s.Rollups(ctx, gpus[0].ID, models.RollupHour, t0, now)
		if err != nil || len(hours) != 2 {
			t.Fatalf("hourly rollups = %d, %v, want 2", len(hours), err)
		}
		if hours[0].N != 120 || hours[0].NIdle != 120 || hours[1].UtilSum != 120*80 || hours[1].MemMax != 239 {
			t.Errorf("hourly = %+v", hours)
		}
		// Raw samples older than the retention (1 h) are gone: re-sending one is accepted anew.
		res, err := s.IngestSamples(ctx, n.ID, []models.Reading{batch[0]}, now)
		if err != nil || res.Accepted != 1 {
			t.Errorf("re-ingest pruned sample = %+v, %v, want accepted", res, err)
		}
	})
}

// BenchmarkIngestSamples measures IngestSamples on SQLite with its indexes: batches of 8 GPUs
// × 125 readings, as one node's agent would send after a short outage.
func BenchmarkIngestSamples(b *testing.B) {
	s := modelstest.SQLite(b, models.Options{})
	n := registerNodeB(b, s, "n1", 8)
	const perGPU = 125
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		batch := make([]models.Reading, 0, 8*perGPU)
		for g := 0; g < 8; g++ {
			for k := 0; k < perGPU; k++ {
				at := base.Add(time.Duration(i*perGPU+k) * time.Second)
				batch = append(batch, sample(fmt.Sprintf("n1-gpu%d", g), at, (k*7)%100, int64(k)))
			}
		}
		if _, err := s.IngestSamples(context.Background(), n.ID, batch, base.Add(time.Duration((i+1)*perGPU)*time.Second)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*8*perGPU)/b.Elapsed().Seconds(), "samples/s")
}

func registerNodeB(b *testing.B, s *models.Store, host string, gpus int) models.Node {
	req := models.NodeRegistration{Hostname: host, Pool: "bench"}
	for i := 0; i < gpus; i++ {
		req.GPUs = append(req.GPUs, models.GPUInfo{UUID: fmt.Sprintf("%s-gpu%d", host, i), Index: i, Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920})
	}
	n, err := s.RegisterNode(context.Background(), req, "hash-"+host, t0)
	if err != nil {
		b.Fatal(err)
	}
	return n
}
