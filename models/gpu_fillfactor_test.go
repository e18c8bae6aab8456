package models_test

import (
	"context"
	"fmt"
	"testing"

	"kashi/models"
	"kashi/models/modelstest"
)

// On Postgres the readings written behind stay on their rows' pages (heap-only updates,
// which change no index): a round of readings of 256 GPUs moves no row to another page. With
// the pages filled to the brim, most new versions went to another page and into every index.
func TestReadingsUpdateRowsOnTheirPages(t *testing.T) {
	s := modelstest.Postgres(t, models.Options{WriteBehind: never})
	ctx := context.Background()
	var nodes []models.Node
	for i := range 8 {
		host := fmt.Sprintf("ff%d", i)
		req := models.NodeRegistration{Hostname: host, Pool: "a100"}
		for j := range 32 {
			req.GPUs = append(req.GPUs, models.GPUInfo{UUID: fmt.Sprintf("%s-gpu%d", host, j), Index: j, Name: modelstest.A100Name, MemoryTotalMiB: modelstest.A100MiB})
		}
		n, err := s.RegisterNode(ctx, req, "hash-"+host, t0)
		if err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, n)
	}
	pages := func() map[int64]int64 {
		t.Helper()
		var rows []struct{ ID, Page int64 }
		if err := models.DB(s).Raw("SELECT id, (ctid::text::point)[0]::bigint AS page FROM gpus").Scan(&rows).Error; err != nil {
			t.Fatal(err)
		}
		out := make(map[int64]int64, len(rows))
		for _, r := range rows {
			out[r.ID] = r.Page
		}
		return out
	}
	before := pages()
	for i, n := range nodes {
		var batch []models.Reading
		for j := range 32 {
			batch = append(batch, sample(fmt.Sprintf("ff%d-gpu%d", i, j), t0, 50, 1000))
		}
		if _, err := s.IngestSamples(ctx, n.ID, batch, t0); err != nil {
			t.Fatal(err)
		}
	}
	if err := models.WriteReadings(ctx, s); err != nil {
		t.Fatal(err)
	}
	after := pages()
	moved := 0
	for id, p := range before {
		if after[id] != p {
			moved++
		}
	}
	if len(before) != 256 || moved > 0 {
		t.Errorf("%d of %d GPU rows moved to another page when their readings were written, want none", moved, len(before))
	}
}
