package models_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// The pools page reads every pool in a fixed number of queries: each pool gets its own
// booting machines, its newest events (at most the limit) and its last change.
func TestPoolOverviews(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		ids := map[string]int64{}
		for _, name := range []string{"a100", "h800"} {
			cfg := a100Config()
			cfg.Spec = name
			p, err := s.SavePoolConfig(ctx, name, cfg, "admin", "first", ft0)
			if err != nil {
				t.Fatal(err)
			}
			ids[name] = p.ID
		}
		cfg := a100Config()
		cfg.Spec, cfg.MaxNodes = "a100", 9
		if _, err := s.SavePoolConfig(ctx, "a100", cfg, "lead", "more", ft0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		for i := range 5 {
			ev := models.ScalingEvent{Kind: "scale-up", Reason: "demand-waiting", Detail: fmt.Sprint(i)}
			if err := s.RecordScalingEvent(ctx, ids["a100"], ev, ft0.Add(time.Duration(i)*time.Minute)); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.RecordScaleUp(ctx, ids["h800"], []string{"h800-k1"}, models.ScalingEvent{Kind: "scale-up", Detail: "h"}, ft0); err != nil {
			t.Fatal(err)
		}
		ovs, err := s.PoolOverviews(ctx, 3)
		if err != nil || len(ovs) != 2 {
			t.Fatalf("PoolOverviews = %d, %v; want 2", len(ovs), err)
		}
		by := map[string]models.PoolOverview{}
		for _, o := range ovs {
			by[o.Name] = o
		}
		a, h := by["a100"], by["h800"]
		if len(a.Events) != 3 || a.Events[0].Detail != "4" || a.Events[2].Detail != "2" {
			t.Errorf("a100 events = %+v, want the newest three, newest first", a.Events)
		}
		if a.LastChange.Version != 2 || a.LastChange.By != "lead" || len(a.Booting) != 0 {
			t.Errorf("a100: last change %+v, %d booting; want version 2 by lead, none booting", a.LastChange, len(a.Booting))
		}
		if len(h.Booting) != 1 || h.Booting[0].IdempotencyKey != "h800-k1" || len(h.Events) != 1 {
			t.Errorf("h800: booting %+v, events %+v; want its one machine and event", h.Booting, h.Events)
		}
	})
}
