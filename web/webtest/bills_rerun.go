package webtest

import (
	"context"
	"testing"
	"time"

	"kashi/api"
	"kashi/models"
)

// The nodes of RunRerun's attempts, one A100 card each in the bill world's pool: the first
// runs on LostHost and loses it, the second on SpareHost.
const (
	LostHost  = "a100-lost"
	SpareHost = "a100-spare"
)

// RunRerun runs a task whose first attempt loses its node: created at start-1m and placed at
// start on LostHost's card, busy at util, it reports a checkpoint to /ckpt/<name> at
// start+cp, and its node falls silent at start+lost and is given up an hour later; queued
// again, its second attempt runs on SpareHost's card from then for d, busy at util too, and
// exits 0. The caller rolls up, so start after the world's own tasks (whose rollups the
// world made: earlier readings are not rolled up again). A world runs one.
func (w BillWorld) RunRerun(t testing.TB, b *TaskB, start time.Time, cp, lost, d time.Duration, util int) models.Task {
	t.Helper()
	ctx := context.Background()
	register := func(host string) models.Node {
		r := Node(host).InPool("a100").Cards(A100Name, A100MiB, 1).R
		req := models.NodeRegistration{Hostname: r.Hostname, Pool: r.Pool, GPUs: []models.GPUInfo{models.GPUInfo(r.GPUs[0])}}
		n, err := w.Store.RegisterNode(ctx, req, "hash-"+host, start.Add(-time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	n, spare := register(LostHost), register(SpareHost)
	tk := w.Create(b, start.Add(-time.Minute))
	w.Place(tk, start, UUIDOf(LostHost, 0))
	feed := func(node int64, uuid string, from, to time.Time) {
		var ss []api.Sample
		for at := from; at.Before(to); at = at.Add(time.Minute) {
			ss = append(ss, Sample(uuid, at, util, 1024))
		}
		if _, err := w.Store.IngestSamples(ctx, node, Readings(ss), to); err != nil {
			t.Fatal(err)
		}
	}
	feed(n.ID, UUIDOf(LostHost, 0), start, start.Add(lost))
	at := start.Add(cp)
	err := w.Store.ReportTaskStatus(ctx, n.ID, tk.ID, models.TaskReport{State: models.ReportRunning, TS: at, CheckpointAt: &at,
		Checkpoint: "/ckpt/" + b.Nt.Name}, at)
	if err != nil {
		t.Fatal(err)
	}
	given := start.Add(lost + time.Hour)
	if _, err := w.Store.MarkLostNodes(ctx, []int64{n.ID}, given.Add(-time.Minute), given); err != nil {
		t.Fatal(err)
	}
	w.Place(tk, given, UUIDOf(SpareHost, 0))
	feed(spare.ID, UUIDOf(SpareHost, 0), given, given.Add(d))
	end := given.Add(d)
	if err := w.Store.ReportTaskStatus(ctx, spare.ID, tk.ID, models.TaskReport{State: models.ReportExited, TS: end, Attempt: 2}, end); err != nil {
		t.Fatal(err)
	}
	return tk
}
