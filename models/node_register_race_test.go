package models_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

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
