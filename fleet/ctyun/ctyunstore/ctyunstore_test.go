package ctyunstore

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/fleet"
	"kashi/fleet/ctyun"
	"kashi/models"
	"kashi/models/modelstest"
)

// TestPools: the provider reads a pool's cloud settings, and the zones of the ctyun pools,
// from the pools' configuration.
func TestPools(t *testing.T) {
	ctx := context.Background()
	s := modelstest.SQLite(t, models.Options{})
	now := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	save := func(name string, c models.PoolConfig) {
		t.Helper()
		c.Spec, c.GPUsPerNode = "A100-80G", 8
		if _, err := s.SavePoolConfig(ctx, name, c, "admin", "", now); err != nil {
			t.Fatal(err)
		}
	}
	gz := models.PoolConfig{Provider: "ctyun", Region: "cn-gz1", Zone: "cn-gz1-a", VPC: "vpc-1", Subnet: "sn-1",
		SecurityGroup: "sg-1", DiskType: "SAS", DiskGB: 200}
	save("a100", gz)
	save("a100-2", gz)
	save("h800", models.PoolConfig{Provider: "ctyun", Region: "cn-sh1"})
	save("local", models.PoolConfig{Provider: "exec", Region: "elsewhere"})
	p := Store{s}
	got, err := p.Settings(ctx, "a100")
	want := ctyun.PoolSettings{Region: "cn-gz1", Zone: "cn-gz1-a", VPC: "vpc-1", Subnet: "sn-1", SecurityGroup: "sg-1",
		DiskType: "SAS", DiskGB: 200}
	if err != nil || got != want {
		t.Errorf("Settings(a100) = %+v, %v; want %+v", got, err, want)
	}
	if _, err := p.Settings(ctx, "nope"); err == nil {
		t.Errorf("Settings(nope): no error")
	}
	zones, err := p.Zones(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]ctyun.Zone{{Region: "cn-gz1", Zone: "cn-gz1-a"}, {Region: "cn-sh1"}}, zones); diff != "" {
		t.Errorf("Zones (-want +got):\n%s", diff)
	}
}

// TestOrders: an order saved comes back whole, saving one of the same key replaces it, and
// closing forgets it; on SQLite and Postgres.
func TestOrders(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		st := Store{s}
		at := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
		m := fleet.Machine{ID: "cn-gz1/kashi-k1", Pool: "a100", IdempotencyKey: "k1", State: fleet.StateCreating,
			Flavor: "pi7", Tags: fleet.Tags("test", "a100", "k1"), CreatedAt: at}
		if err := st.SaveOrder(ctx, ctyun.Order{ID: "order-1", Machine: m}); err != nil {
			t.Fatal(err)
		}
		if err := st.SaveOrder(ctx, ctyun.Order{ID: "order-2", Machine: m}); err != nil {
			t.Fatal(err)
		}
		got, err := st.OpenOrders(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]ctyun.Order{{ID: "order-2", Machine: m}}, got); diff != "" {
			t.Errorf("OpenOrders (-want +got):\n%s", diff)
		}
		if err := st.CloseOrder(ctx, m.ID); err != nil {
			t.Fatal(err)
		}
		if got, err := st.OpenOrders(ctx); err != nil || len(got) != 0 {
			t.Errorf("OpenOrders after CloseOrder = %+v, %v; want none", got, err)
		}
	})
}
