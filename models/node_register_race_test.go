package models_test

import (
	"context"
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
