package models

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkIngestAsAgents measures sample ingest as agents send it: 512 nodes of 8 GPUs, each
// request one node's reading of its eight cards, from 256 callers at once (b.SetParallelism),
// through IngestSamples and its group commit into SQLite with its indexes, every GPU's latest
// reading and timers updated. In the same run and the same database it first measures the
// raw limit: rows of the same shape (one reading of every GPU at each step) as 1,000-row
// multi-row INSERTs in a transaction each, so "of-raw" is the ratio of the two rates with the
// machine's speed cancelled out; and, for the record, the raw rate of 8 GPUs' consecutive
// seconds (raw-8-gpus, BenchmarkRawSampleInsert's shape, whose rows share index pages). With
// -short, 16 nodes.
func BenchmarkIngestAsAgents(b *testing.B) {
	const gpus = 8
	nodes, rawBatches := 512, 100
	if testing.Short() { // CI's smoke run
		nodes, rawBatches = 16, 5
	}
	s, err := Open(context.Background(), filepath.Join(b.TempDir(), "agents.db"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	nodeIDs := make([]int64, nodes)
	for n := range nodes {
		req := NodeRegistration{Hostname: fmt.Sprintf("n%03d", n), Pool: "bench"}
		for i := range gpus {
			req.GPUs = append(req.GPUs, GPUInfo{UUID: fmt.Sprintf("n%03d-g%d", n, i), Index: i, Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920})
		}
		node, err := s.RegisterNode(ctx, req, fmt.Sprintf("h%d", n), time.Now())
		if err != nil {
			b.Fatal(err)
		}
		nodeIDs[n] = node.ID
	}
	raw, clustered := rawSampleRate(b, s, rawBatches, true), rawSampleRate(b, s, rawBatches, false)

	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var next atomic.Int64
	b.SetParallelism(128) // × GOMAXPROCS callers
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		batch := make([]Reading, gpus)
		for pb.Next() {
			k := int(next.Add(1) - 1)
			n, step := k%nodes, k/nodes
			at := base.Add(time.Duration(step) * 10 * time.Second)
			for i := range batch {
				batch[i] = Reading{UUID: fmt.Sprintf("n%03d-g%d", n, i), TS: at, UtilPct: (step*7 + i) % 100, MemoryUsedMiB: int64(step), TempC: 40, PowerW: 100}
			}
			if _, err := s.IngestSamples(ctx, nodeIDs[n], batch, at); err != nil {
				b.Error(err)
				return
			}
		}
	})
	rate := float64(b.N*gpus) / b.Elapsed().Seconds()
	b.ReportMetric(rate, "samples/s")
	b.ReportMetric(raw, "raw-samples/s")
	b.ReportMetric(rate/raw, "of-raw")
	b.ReportMetric(clustered, "raw-8-gpus-samples/s")
}

// rawSampleRate is the rate of inserting batches of 1,000 samples into s's gpu_samples as
// one multi-row INSERT each, in a transaction, with no validation and no GPU update: the
// driver's limit for the rows ingest stores. With spread, the rows are shaped as the agents
// send them: one reading of each GPU of the store at each 10-s step, every GPU in turn (a
// row per GPU and instant, so each touches its own part of the (gpu_id, ts) index); without,
// 125 consecutive seconds of 8 GPUs. The samples are dated long before any other.
func rawSampleRate(b *testing.B, s *Store, batches int, spread bool) float64 {
	const rows = 1000
	var gpuIDs []int64
	q := s.db.Model(&GPU{}).Order("id")
	if !spread {
		q = q.Limit(8)
	}
	if err := q.Pluck("id", &gpuIDs).Error; err != nil {
		b.Fatal(err)
	}
	db, err := s.db.DB()
	if err != nil {
		b.Fatal(err)
	}
	stmt := "INSERT INTO gpu_samples (gpu_id, ts, memory_used_mib, util_pct, temp_c, power_w) VALUES " +
		strings.TrimSuffix(strings.Repeat("(?,?,?,?,?,?),", rows), ",") + " ON CONFLICT DO NOTHING"
	args := make([]any, 0, 6*rows)
	start := time.Now()
	for i := range batches {
		args = args[:0]
		for r := range rows {
			k := i*rows + r
			id, ts := gpuIDs[k%len(gpuIDs)], int64(1_000_000_000+10*(k/len(gpuIDs)))
			if !spread {
				id, ts = gpuIDs[r/(rows/len(gpuIDs))], int64(900_000_000+i*(rows/len(gpuIDs))+r%(rows/len(gpuIDs)))
			}
			args = append(args, id, ts, int64(k), (k*7)%100, 40, 100)
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
	return float64(batches*rows) / time.Since(start).Seconds()
}
