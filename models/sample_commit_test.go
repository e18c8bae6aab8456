package models_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/models/modelstest"
)

// Many nodes reporting at once are committed together; a node with a bad sample is refused
// alone and the others are stored.
func TestIngestSamplesFromManyNodes(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		const nodes = 24
		ids := make([]int64, nodes)
		for i := range ids {
			ids[i] = registerNode(t, s, fmt.Sprintf("m%02d", i), "a100", 2).ID
		}
		got := make([]string, nodes)
		var wg sync.WaitGroup
		for i, id := range ids {
			wg.Go(func() {
				host := fmt.Sprintf("m%02d", i)
				batch := []models.Reading{sample(host+"-gpu0", t0, i, 100), sample(host+"-gpu1", t0, 3, 100)}
				if i == 5 {
					batch[1].UtilPct = 101
				}
				res, err := s.IngestSamples(ctx, id, batch, t0.Add(time.Second))
				var fe *models.FieldError
				switch {
				case errors.As(err, &fe):
					got[i] = "refused " + fe.Field
				case err != nil:
					got[i] = err.Error()
				default:
					got[i] = fmt.Sprintf("accepted %d duplicates %d", res.Accepted, res.Duplicates)
				}
			})
		}
		wg.Wait()
		want := make([]string, nodes)
		for i := range want {
			want[i] = "accepted 2 duplicates 0"
		}
		want[5] = "refused samples[1].util_pct"
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("IngestSamples answers (-want +got):\n%s", diff)
		}
		rows, err := s.BoardGPUs(ctx, models.BoardFilter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			stored := r.SampledAt != nil
			if want := r.Hostname != "m05"; stored != want {
				t.Errorf("%s has a reading: %v, want %v", r.UUID, stored, want)
			}
			if r.Hostname != "m05" && (!r.LastSeenAt.Equal(t0.Add(time.Second)) || r.Index == 1 && r.IdleSince == nil) {
				t.Errorf("%s last seen %v idle since %v, want %v and set on gpu1", r.UUID, r.LastSeenAt, r.IdleSince, t0.Add(time.Second))
			}
		}
	})
}

// The board follows changes to nodes at once, and readings without reading the nodes again.
func TestBoardFollowsChangesAndReadings(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		n1 := registerNode(t, s, "b1", "a100", 1)
		hosts := func() []string {
			rows, err := s.BoardGPUs(ctx, models.BoardFilter{})
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, r := range rows {
				out = append(out, fmt.Sprintf("%s util %d", r.Hostname, r.UtilPct))
			}
			return out
		}
		if diff := cmp.Diff([]string{"b1 util 0"}, hosts()); diff != "" {
			t.Errorf("board (-want +got):\n%s", diff)
		}
		registerNode(t, s, "b2", "a100", 1)
		if diff := cmp.Diff([]string{"b1 util 0", "b2 util 0"}, hosts()); diff != "" {
			t.Errorf("board after a registration (-want +got):\n%s", diff)
		}
		for i, util := range []int{70, 20} {
			if _, err := s.IngestSamples(ctx, n1.ID, []models.Reading{sample("b1-gpu0", t0.Add(time.Duration(i)*time.Second), util, 10)}, t0.Add(time.Minute)); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{fmt.Sprintf("b1 util %d", util), "b2 util 0"}, hosts()); diff != "" {
				t.Errorf("board after a sample (-want +got):\n%s", diff)
			}
		}
		_, specs, _, err := s.BoardOptions(ctx)
		if err != nil || len(specs) != 1 {
			t.Errorf("BoardOptions specs = %v, %v, want one", specs, err)
		}
	})
}

// A store closed under a waiting ingest answers it instead of leaving it waiting.
func TestIngestSamplesAfterClose(t *testing.T) {
	s := modelstest.SQLite(t, models.Options{})
	n := registerNode(t, s, "c1", "a100", 1)
	s.Close()
	_, err := s.IngestSamples(context.Background(), n.ID, []models.Reading{sample("c1-gpu0", t0, 1, 1)}, t0)
	if err == nil {
		t.Error("IngestSamples on a closed store = nil error, want one")
	}
}
