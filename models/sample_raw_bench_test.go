package models

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkRawSampleInsert is the driver's limit for the rows BenchmarkIngestSamples stores:
// the same 1,000-row batches as one multi-row INSERT each, in a transaction, through
// database/sql with no validation and no GPU updates. BENCHMARKS.md puts the two side by side.
func BenchmarkRawSampleInsert(b *testing.B) {
	s, err := Open(context.Background(), filepath.Join(b.TempDir(), "raw.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	req := NodeRegistration{Hostname: "n1", Pool: "bench"}
	for i := 0; i < 8; i++ {
		req.GPUs = append(req.GPUs, GPUInfo{UUID: fmt.Sprintf("g%d", i), Index: i, Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920})
	}
	if _, err := s.RegisterNode(context.Background(), req, "h", time.Now()); err != nil {
		b.Fatal(err)
	}
	var gpuIDs []int64
	s.db.Model(&GPU{}).Order("id").Pluck("id", &gpuIDs)
	db, _ := s.db.DB()
	const perGPU = 125
	stmt := "INSERT INTO gpu_samples (gpu_id, ts, memory_used_mib, util_pct, temp_c, power_w) VALUES " +
		strings.TrimSuffix(strings.Repeat("(?,?,?,?,?,?),", 8*perGPU), ",") + " ON CONFLICT DO NOTHING"
	args := make([]any, 0, 6*8*perGPU)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		args = args[:0]
		for _, id := range gpuIDs {
			for k := 0; k < perGPU; k++ {
				args = append(args, id, int64(1_700_000_000+i*perGPU+k), int64(k), (k*7)%100, 40, 100)
			}
		}
		tx, err := db.Begin()
		if err != nil {
			b.Fatal(err)
		}
		if _, err := tx.Exec(stmt, args...); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*8*perGPU)/b.Elapsed().Seconds(), "samples/s")
}
