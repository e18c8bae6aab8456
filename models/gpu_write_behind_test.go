package models_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// never is a write-behind interval no test outlasts: rows learn readings only when a test
// writes them or closes the store.
const never = time.Hour

// gpuRow reads the row of the GPU uuid as it is stored, past the live view.
func gpuRow(t *testing.T, s *models.Store, uuid string) models.GPU {
	t.Helper()
	var g models.GPU
	if err := models.DB(s).Where("uuid = ?", uuid).Take(&g).Error; err != nil {
		t.Fatalf("gpu row %s: %v", uuid, err)
	}
	return g
}

// ingest stores one reading of the node's first GPU at at, failing the test otherwise.
func ingest(t *testing.T, s *models.Store, n models.Node, at time.Time, util int) {
	t.Helper()
	if _, err := s.IngestSamples(context.Background(), n.ID, []models.Reading{sample(n.Hostname+"-gpu0", at, util, 100)}, at); err != nil {
		t.Fatalf("IngestSamples(%s, %v) = %v", n.Hostname, at, err)
	}
}

// A reading is read at once by everything that reads GPUs in the process — the board and
// GET /api/v1/gpus (BoardGPUs), the scheduler and the scaling loop (Nodes), the GPU and node
// pages — while its row learns it only when the readings are written behind.
func TestReadingVisibleBeforeItsRow(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{WriteBehind: never}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n := registerNode(t, s, "wb1", "a100", 1)
		ingest(t, s, n, t0, 3)
		uuid := n.Hostname + "-gpu0"
		if g := gpuRow(t, s, uuid); g.SampledAt != nil {
			t.Fatalf("row sampled at %v before the write-behind, want none yet", g.SampledAt)
		}
		board, err := s.BoardGPUs(ctx, models.BoardFilter{})
		if err != nil || len(board) != 1 {
			t.Fatalf("BoardGPUs = %d rows, %v", len(board), err)
		}
		nodes, err := s.Nodes(ctx)
		if err != nil || len(nodes) != 1 {
			t.Fatalf("Nodes = %d, %v", len(nodes), err)
		}
		place, err := s.GPUByUUID(ctx, uuid)
		if err != nil {
			t.Fatal(err)
		}
		node, err := s.NodePlace(ctx, n.ID)
		if err != nil {
			t.Fatal(err)
		}
		for what, g := range map[string]models.GPU{"BoardGPUs": board[0].GPU, "Nodes": nodes[0].GPUs[0], "GPUByUUID": place.GPU, "NodePlace": node.GPUs[0]} {
			if g.SampledAt == nil || !g.SampledAt.Equal(t0) || g.UtilPct != 3 || g.IdleSince == nil || !g.IdleSince.Equal(t0) {
				t.Errorf("%s: sampled at %v, %d%%, idle since %v; want the reading at %v, 3%%, idle since then", what, g.SampledAt, g.UtilPct, g.IdleSince, t0)
			}
		}
		if err := models.WriteReadings(ctx, s); err != nil {
			t.Fatal(err)
		}
		if g := gpuRow(t, s, uuid); g.SampledAt == nil || !g.SampledAt.Equal(t0) || g.UtilPct != 3 || g.IdleSince == nil {
			t.Errorf("row after the write-behind: sampled at %v, %d%%, idle since %v; want the reading at %v", g.SampledAt, g.UtilPct, g.IdleSince, t0)
		}
	})
}

// Another replica reads the rows: a reading taken by one store reaches them within a few
// write-behind intervals, and a timer survives the trip (the second store goes on from it).
func TestReadingReachesAnotherReplicaWithinAnInterval(t *testing.T) {
	const every = 20 * time.Millisecond
	modelstest.ForEachDBReplicas(t, models.Options{WriteBehind: every}, func(t *testing.T, a, b *models.Store) {
		ctx := context.Background()
		n := registerNode(t, a, "wb2", "a100", 1)
		ingest(t, a, n, t0, 3)
		start := time.Now()
		for {
			g, err := b.GPUByUUID(ctx, n.Hostname+"-gpu0")
			if err != nil {
				t.Fatal(err)
			}
			if g.SampledAt != nil && g.SampledAt.Equal(t0) {
				break
			}
			if time.Since(start) > time.Minute { // a bound for a busy machine; it takes a few intervals
				t.Fatalf("the other replica reads no reading %v after it was stored (interval %v)", time.Since(start), every)
			}
			time.Sleep(every / 4)
		}
		ingest(t, b, n, t0.Add(10*time.Second), 4)
		g, err := b.GPUByUUID(ctx, n.Hostname+"-gpu0")
		if err != nil || g.IdleSince == nil || !g.IdleSince.Equal(t0) {
			t.Errorf("the other replica's next idle reading: idle since %v (%v), want %v, the first replica's", g.IdleSince, err, t0)
		}
	})
}

// Close writes what is not written yet: a store shut down loses no latest reading.
func TestCloseWritesReadings(t *testing.T) {
	modelstest.ForEachDBReplicas(t, models.Options{WriteBehind: never}, func(t *testing.T, a, b *models.Store) {
		n := registerNode(t, a, "wb3", "a100", 1)
		ingest(t, a, n, t0, 3)
		if g := gpuRow(t, b, n.Hostname+"-gpu0"); g.SampledAt != nil {
			t.Fatalf("row sampled at %v before Close, want none yet", g.SampledAt)
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		if g := gpuRow(t, b, n.Hostname+"-gpu0"); g.SampledAt == nil || !g.SampledAt.Equal(t0) {
			t.Errorf("row after Close sampled at %v, want %v", g.SampledAt, t0)
		}
	})
}

// More readings than one transaction writes on SQLite (models' readingsPerTurn, 512) are
// written in turns, every one of them, on both databases.
func TestManyReadingsWritten(t *testing.T) {
	modelstest.ForEachDBReplicas(t, models.Options{WriteBehind: never}, func(t *testing.T, a, b *models.Store) {
		ctx := context.Background()
		const nodes, gpus = 90, 8 // 720 GPUs
		for i := range nodes {
			n := registerNode(t, a, fmt.Sprintf("wbm%d", i), "a100", gpus)
			batch := make([]models.Reading, gpus)
			for g := range batch {
				batch[g] = sample(fmt.Sprintf("%s-gpu%d", n.Hostname, g), t0, 50, 100)
			}
			if _, err := a.IngestSamples(ctx, n.ID, batch, t0); err != nil {
				t.Fatal(err)
			}
		}
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		var written int64
		if err := models.DB(b).Model(&models.GPU{}).Where("sampled_at = ?", t0).Count(&written).Error; err != nil || written != nodes*gpus {
			t.Errorf("GPU rows written = %d (%v), want %d", written, err, nodes*gpus)
		}
	})
}

// A node removed while its GPUs' readings wait to be written is not written back, whether or
// not the board was read between (which lets go of its live readings).
func TestRemovedGPUNotWrittenBack(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{WriteBehind: never}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		kept, gone, read := registerNode(t, s, "keep", "a100", 1), registerNode(t, s, "gone", "a100", 1), registerNode(t, s, "read", "a100", 1)
		for _, n := range []models.Node{kept, gone, read} {
			ingest(t, s, n, t0, 50)
		}
		for _, n := range []models.Node{gone, read} {
			if err := models.MarkRemoved(ctx, s, n.ID); err != nil {
				t.Fatal(err)
			}
		}
		if err := models.RefreshBoard(ctx, s); err != nil {
			t.Fatal(err)
		}
		ingest(t, s, gone, t0.Add(10*time.Second), 60) // a removed node's agent still reporting
		if err := models.WriteReadings(ctx, s); err != nil {
			t.Fatal(err)
		}
		if g := gpuRow(t, s, "keep-gpu0"); g.SampledAt == nil {
			t.Error("the kept node's row holds no reading")
		}
		for _, uuid := range []string{"gone-gpu0", "read-gpu0"} {
			if g := gpuRow(t, s, uuid); g.SampledAt != nil {
				t.Errorf("removed %s written back: sampled at %v", uuid, g.SampledAt)
			}
		}
	})
}

// A row that holds a newer reading than the one written behind keeps it: two replicas
// writing one GPU's readings never move its row back in time.
func TestNewerRowKept(t *testing.T) {
	modelstest.ForEachDBReplicas(t, models.Options{WriteBehind: never}, func(t *testing.T, a, b *models.Store) {
		ctx := context.Background()
		n := registerNode(t, a, "wb4", "a100", 1)
		ingest(t, a, n, t0, 3)
		ingest(t, b, n, t0.Add(10*time.Second), 90)
		if err := models.WriteReadings(ctx, b); err != nil {
			t.Fatal(err)
		}
		if err := models.WriteReadings(ctx, a); err != nil {
			t.Fatal(err)
		}
		if g := gpuRow(t, a, n.Hostname+"-gpu0"); g.SampledAt == nil || !g.SampledAt.Equal(t0.Add(10*time.Second)) || g.UtilPct != 90 {
			t.Errorf("row sampled at %v, %d%%; want the newer reading at %v, 90%%", g.SampledAt, g.UtilPct, t0.Add(10*time.Second))
		}
	})
}

// A GPU registered through another replica is known to a store that holds its node's rows
// from before: the batch the held rows refuse is checked against the rows read again.
func TestGPUAddedOnAnotherReplica(t *testing.T) {
	modelstest.ForEachDBReplicas(t, models.Options{}, func(t *testing.T, a, b *models.Store) {
		ctx := context.Background()
		n := registerNode(t, a, "wb5", "a100", 1)
		ingest(t, a, n, t0, 3) // a holds the node's one GPU
		again := models.NodeRegistration{Hostname: "wb5", Pool: "a100", NodeTokenHash: "hash-wb5"}
		for i := range 2 {
			again.GPUs = append(again.GPUs, models.GPUInfo{UUID: fmt.Sprintf("wb5-gpu%d", i), Index: i, Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920})
		}
		if _, err := b.RegisterNode(ctx, again, "hash-wb5", t0); err != nil {
			t.Fatal(err)
		}
		res, err := a.IngestSamples(ctx, n.ID, []models.Reading{sample("wb5-gpu1", t0.Add(10*time.Second), 5, 100)}, t0.Add(10*time.Second))
		if err != nil || res.Accepted != 1 {
			t.Fatalf("a reading of the new GPU = %+v, %v; want accepted", res, err)
		}
	})
}
