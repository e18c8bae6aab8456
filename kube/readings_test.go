package kube

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/agent"
	"kashi/api"
	"kashi/models"
)

// TestNodeReadings: the exporter's cards a task's pod holds give their readings to Kashi's
// cards of that task, whatever their index on the exporter; the cards of no task's pod (none,
// another namespace's, someone else's) to Kashi's free cards in index order; a reading of
// more memory than Kashi's card has is left out; a card of a pod that is no task's carries
// the pod as an unmanaged process; a page of another node of the pool is refused.
func TestNodeReadings(t *testing.T) {
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	var gpus []models.GPU
	for i := range 8 {
		gpus = append(gpus, models.GPU{UUID: gpuUUID("n1", i), Index: i, MemoryTotalMiB: 81920})
	}
	held := map[string][]string{
		"kashi-p-5-1": {gpuUUID("n1", 1), gpuUUID("n1", 0)},
		"kashi-p-6-1": {gpuUUID("n1", 2), gpuUUID("n1", 3)},
	}
	at := func(gpu, util int, pod, ns string) agent.PlacedSample {
		return agent.PlacedSample{Sample: api.Sample{UUID: "GPU-real-" + string(rune('a'+gpu)), TS: t0, UtilPct: util, MemoryUsedMiB: 1000,
			TempC: 40 + gpu}, Hostname: "n1", GPU: gpu, Pod: pod, Namespace: ns}
	}
	placed := []agent.PlacedSample{
		at(7, 95, "kashi-p-5-1", "default"), at(6, 96, "kashi-p-5-1", "default"),
		at(5, 0, "kashi-p-6-1", "default"), at(4, 1, "kashi-p-6-1", "default"),
		at(0, 10, "", ""), at(1, 11, "kashi-p-5-1", "other-ns"), at(2, 12, "someone-elses", "default"), at(3, 13, "", ""),
	}
	placed[7].MemoryUsedMiB = 90000 // more than the card has: left out
	got, err := nodeReadings("n1", "default", placed, gpus, held, map[string]int64{"n1": 1, "n2": 2})
	if err != nil {
		t.Fatal(err)
	}
	type reading struct {
		UUID        string
		Util, TempC int
		Unmanaged   []models.ProcessReading
	}
	var short []reading
	for _, r := range got {
		short = append(short, reading{r.UUID, r.UtilPct, r.TempC, r.Processes})
	}
	outside := func(ns, pod string) []models.ProcessReading {
		return []models.ProcessReading{{UsedMemoryMiB: 1000, Unmanaged: true, User: ns, Command: "pod " + pod}}
	}
	want := []reading{
		{"k8s-n1-4", 10, 40, nil}, {"k8s-n1-5", 11, 41, outside("other-ns", "kashi-p-5-1")},
		{"k8s-n1-6", 12, 42, outside("default", "someone-elses")},
		{"k8s-n1-2", 1, 44, nil}, {"k8s-n1-3", 0, 45, nil}, {"k8s-n1-0", 96, 46, nil}, {"k8s-n1-1", 95, 47, nil},
	}
	if diff := cmp.Diff(want, short); diff != "" {
		t.Errorf("nodeReadings(...) (-want +got):\n%s", diff)
	}

	placed[0].Hostname = "n2"
	if got, err := nodeReadings("n1", "default", placed, gpus, held, map[string]int64{"n1": 1, "n2": 2}); err == nil {
		t.Errorf("nodeReadings(a page naming node n2) = %+v, want an error", got)
	}
	placed[0].Hostname = "dcgm-exporter-7xk2p" // the exporter pod's own name: not a node of the pool
	if _, err := nodeReadings("n1", "default", placed, gpus, held, map[string]int64{"n1": 1, "n2": 2}); err != nil {
		t.Errorf("nodeReadings(a page naming no node of the pool) = %v", err)
	}
}
