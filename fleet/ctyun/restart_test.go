package ctyun_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"kashi/fleet"
	"kashi/fleet/ctyun"
	"kashi/fleet/ctyun/ctyunstore"
	"kashi/models"
)

// TestKillAndRestartPollsSavedOrder kills a server while its order is open: the first
// process's store and provider are dropped, and a second process opens the same database
// file with a fresh provider. The cloud has meanwhile forgotten the clientToken, so ordering
// again would make a second instance: the restarted provider must poll the saved order
// instead. It lists the machine as creating, answers a Create of the key with it without
// calling create-instance, and once the instance is listed the order is closed and the cloud
// holds one instance.
func TestKillAndRestartPollsSavedOrder(t *testing.T) {
	ctx := context.Background()
	dsn := filepath.Join(t.TempDir(), "kashi.db")
	creds := ctyun.Credentials{AK: "ak-fake", SK: "sk-fake-secret"}
	f := ctyun.NewFakeCloud(t, creds)
	f.SetOrderDelay(300 * time.Millisecond)
	open := func() (*models.Store, *ctyun.Provider) {
		t.Helper()
		s, err := models.Open(ctx, dsn, models.Options{})
		if err != nil {
			t.Fatal(err)
		}
		st := ctyunstore.Store{S: s}
		p, err := ctyun.New(ctyun.Config{Credentials: creds, Endpoint: f.URL(), HTTPClient: f.Client(), Pools: st, Orders: st,
			PollEvery: 5 * time.Millisecond, OrderWait: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		return s, p
	}
	first, p1 := open()
	cfg := models.PoolConfig{Provider: "ctyun", Spec: "A100-80G", GPUsPerNode: 8, Region: "cn-gz1", Zone: "cn-gz1-a",
		VPC: "vpc-1", Subnet: "subnet-1"}
	if _, err := first.SavePoolConfig(ctx, "a100", cfg, "admin", "", time.Now()); err != nil {
		t.Fatal(err)
	}
	req := fleet.CreateRequest{Pool: "a100", Flavor: "pi7.8xlarge.a100", Image: "img-kashi", IdempotencyKey: "slot-1",
		Tags: fleet.Tags("test", "a100", "slot-1")}
	m, err := p1.Create(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Close(); err != nil { // the kill: nothing of the first process survives but the file
		t.Fatal(err)
	}
	f.ForgetClientTokens()

	second, p2 := open()
	defer second.Close()
	if saved, err := second.CloudOrders(ctx, ctyunstore.Provider); err != nil || len(saved) != 1 || saved[0].MachineKey != "slot-1" {
		t.Fatalf("open orders after the restart = %+v, %v; want the order of slot-1", saved, err)
	}
	listed, err := p2.List(ctx, "a100")
	if err != nil || len(listed) != 1 || listed[0].ID != m.ID || listed[0].State != fleet.StateCreating ||
		listed[0].Tags[fleet.TagCluster] != "test" {
		t.Fatalf("List after the restart = %+v, %v; want %s creating with its tags", listed, err, m.ID)
	}
	again, err := p2.Create(ctx, req)
	if err != nil || again.ID != m.ID {
		t.Fatalf("Create after the restart = %+v, %v; want %s", again, err, m.ID)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		ms, err := p2.List(ctx, "a100")
		if err != nil {
			t.Fatal(err)
		}
		if len(ms) == 1 && ms[0].State == fleet.StateRunning {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the machine never ran: %+v", ms)
		}
	}
	if n := f.Creates(); n != 1 {
		t.Errorf("create-instance placed %d orders, want 1", n)
	}
	if n := f.Live("kashi-slot-1"); n != 1 {
		t.Errorf("the cloud holds %d instances of slot-1, want 1", n)
	}
	if saved, err := second.CloudOrders(ctx, ctyunstore.Provider); err != nil || len(saved) != 0 {
		t.Errorf("open orders once the instance is listed = %+v, %v; want none", saved, err)
	}
	if n := f.BadSignatures(); n != 0 {
		t.Errorf("the fake refused %d signatures", n)
	}
}
