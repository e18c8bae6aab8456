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

// Nodes of a new pool registering at once all join the one pool.
func TestRegisterNodesOfANewPoolAtOnce(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		var wg sync.WaitGroup
		errs := make([]error, 16)
		for i := range errs {
			wg.Go(func() {
				req := models.NodeRegistration{Hostname: fmt.Sprintf("r%02d", i), Pool: "fresh",
					GPUs: []models.GPUInfo{{UUID: fmt.Sprintf("r%02d-gpu0", i), Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920}}}
				_, errs[i] = s.RegisterNode(context.Background(), req, fmt.Sprintf("hash-r%02d", i), t0)
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("RegisterNode(r%02d) = %v", i, err)
			}
		}
		pools, _, _, err := s.BoardOptions(context.Background())
		if diff := cmp.Diff([]string{"fresh"}, pools); err != nil || diff != "" {
			t.Errorf("pools %v (-want +got):\n%s", err, diff)
		}
	})
}

// Registrations beyond the pool's connections, beside plain reads, on a store whose prepared
// statements are all new, finish: no statement waits for a connection that a transaction holds
// while that transaction waits for the statement. (On Postgres, GORM's statement cache held
// its lock while a statement waited for a connection; a fleet registering at once after a
// restart stalled until the agents gave up.)
func TestRegisterBurstBeyondThePool(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{MaxConns: 2}, func(t *testing.T, s *models.Store) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		var wg sync.WaitGroup
		errs := make([]error, 48)
		for i := range errs {
			wg.Go(func() {
				if i%3 != 0 {
					_, errs[i] = s.SharedJoinTokenRevoked(ctx)
					return
				}
				req := models.NodeRegistration{Hostname: fmt.Sprintf("b%02d", i), Pool: "burst",
					GPUs: []models.GPUInfo{{UUID: fmt.Sprintf("b%02d-gpu0", i), Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920}}}
				var node models.Node
				if node, errs[i] = s.RegisterNode(ctx, req, fmt.Sprintf("hash-b%02d", i), t0); errs[i] == nil {
					_, errs[i] = s.PrePullImages(ctx, node.PoolID)
				}
			})
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("call %d = %v", i, err)
			}
		}
	})
}

// A removed node's hostname and cards are free, for one registration: of 8 new nodes sent at
// once that name one of its cards, one takes it; of 8 sent at once under its hostname, one
// takes its row back; the others are refused, naming the field, as taking another node's.
func TestRegisterWhatARemovedNodeFreedAtOnce(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		old := fleetNode(t, s, "old", "a100", "m-old")
		if err := s.DrainNode(ctx, old.ID, models.ScalingEvent{Kind: "drain"}, ft0); err != nil {
			t.Fatal(err)
		}
		if _, err := s.RemoveNode(ctx, old.ID, models.ScalingEvent{Kind: "remove"}, ft0); err != nil {
			t.Fatal(err)
		}
		race := func(field string, reg func(i int) models.NodeRegistration) {
			t.Helper()
			errs := make([]error, 8)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range errs {
				wg.Go(func() {
					<-start
					_, errs[i] = s.RegisterNode(ctx, reg(i), fmt.Sprintf("hash-%s-%d", field, i), ft0)
				})
			}
			close(start)
			wg.Wait()
			won := 0
			for i, err := range errs {
				fe, _ := errors.AsType[*models.FieldError](err)
				switch {
				case err == nil:
					won++
				case !errors.Is(err, models.ErrConflict) || fe == nil || fe.Field != field:
					t.Errorf("registration %d for %s = %v, want a conflict on it", i, field, err)
				}
			}
			if won != 1 {
				t.Errorf("registrations for %s that won = %d, want 1", field, won)
			}
		}
		card := func(uuid string) []models.GPUInfo {
			return []models.GPUInfo{{UUID: uuid, Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920}}
		}
		race("gpus[0].uuid", func(i int) models.NodeRegistration {
			return models.NodeRegistration{Hostname: fmt.Sprintf("c%d", i), Pool: "a100", GPUs: card("old-gpu1")}
		})
		race("hostname", func(i int) models.NodeRegistration {
			return models.NodeRegistration{Hostname: "old", Pool: "a100", GPUs: card(fmt.Sprintf("fresh-%d", i))}
		})
	})
}
