package ctyun

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/fleet"
	"kashi/fleet/fleettest"
)

var testCreds = Credentials{AK: "ak-fake", SK: "sk-fake-secret"}

// staticPools gives every pool the same settings.
type staticPools struct{ s PoolSettings }

func (sp staticPools) Settings(context.Context, string) (PoolSettings, error) { return sp.s, nil }
func (sp staticPools) Zones(context.Context) ([]Zone, error) {
	return []Zone{{Region: sp.s.Region, Zone: sp.s.Zone}}, nil
}

var testSettings = PoolSettings{Region: "cn-gz1", Zone: "cn-gz1-a", VPC: "vpc-1", Subnet: "subnet-1", SecurityGroup: "sg-1"}

const testUserData = "#cloud-config\n# pool @@POOL@@ machine @@MACHINE_ID@@ token kj1_join-secret\n"

// memOrders keeps open orders in memory, as one database would across restarts.
type memOrders struct {
	mu     sync.Mutex
	orders []Order
}

func (m *memOrders) SaveOrder(_ context.Context, o Order) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.orders = slices.DeleteFunc(m.orders, func(x Order) bool { return x.Machine.IdempotencyKey == o.Machine.IdempotencyKey })
	m.orders = append(m.orders, Order{ID: o.ID, Machine: o.Machine.Clone()})
	return nil
}

func (m *memOrders) OpenOrders(context.Context) ([]Order, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Order, len(m.orders))
	for i, o := range m.orders {
		out[i] = Order{ID: o.ID, Machine: o.Machine.Clone()}
	}
	return out, nil
}

func (m *memOrders) CloseOrder(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.orders = slices.DeleteFunc(m.orders, func(x Order) bool { return x.Machine.ID == id })
	return nil
}

// newProvider returns a provider over the fake with an empty order store of its own.
func newProvider(t *testing.T, f *fakeCloud, creds Credentials) *Provider {
	t.Helper()
	return newProviderWith(t, f, creds, &memOrders{})
}

func newProviderWith(t *testing.T, f *fakeCloud, creds Credentials, orders Orders) *Provider {
	t.Helper()
	p, err := New(Config{Credentials: creds, Endpoint: f.srv.URL, HTTPClient: f.srv.Client(), Pools: staticPools{testSettings},
		Orders: orders, UserData: []byte(testUserData), PollEvery: 5 * time.Millisecond, OrderWait: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// exhaustible adds the conformance suite's capacity switch.
type exhaustible struct {
	*Provider
	*fakeCloud
}

func TestConformance(t *testing.T) {
	fleettest.Run(t, func(t *testing.T) fleet.Provider {
		f := newFakeCloud(t, testCreds)
		t.Cleanup(func() {
			if f.badSigs > 0 {
				t.Errorf("the fake refused %d signatures", f.badSigs)
			}
		})
		return exhaustible{newProvider(t, f, testCreds), f}
	})
}

func req(key string) fleet.CreateRequest {
	return fleet.CreateRequest{Pool: "a100", Flavor: "pi7.8xlarge.a100", Image: "img-kashi", IdempotencyKey: key,
		Tags: fleet.Tags("test", "a100", key)}
}

// waitRunning lists until the machine of key is running.
func waitRunning(t *testing.T, p *Provider, key string) fleet.Machine {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		ms, err := p.List(context.Background(), "a100")
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			if m.IdempotencyKey == key && m.State == fleet.StateRunning {
				return m
			}
		}
	}
	t.Fatalf("machine of %s never ran", key)
	return fleet.Machine{}
}

// TestCreateRequest checks what create-instance is sent: the key as clientToken and in the
// name, the tags as labels, the flavor's id, the pool's network, and the user data with the
// pool and key filled in.
func TestCreateRequest(t *testing.T) {
	f := newFakeCloud(t, testCreds)
	p := newProvider(t, f, testCreds)
	m, err := p.Create(context.Background(), req("a100-0001"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "cn-gz1/" + InstanceName("a100-0001"); m.ID != want || m.State != fleet.StateCreating {
		t.Errorf("Create = %+v, want id %s creating", m, want)
	}
	if len(f.creates) != 1 {
		t.Fatalf("create-instance called %d times, want 1", len(f.creates))
	}
	got := f.creates[0]
	ud, _ := base64.StdEncoding.DecodeString(got.UserData)
	if want := "#cloud-config\n# pool a100 machine a100-0001 token kj1_join-secret\n"; string(ud) != want {
		t.Errorf("userData = %q, want %q", ud, want)
	}
	got.UserData, got.LabelList = "", nil
	want := createRequest{ClientToken: "a100-0001", RegionID: "cn-gz1", AzName: "cn-gz1-a", InstanceName: InstanceName("a100-0001"),
		DisplayName: "kashi-a100-0001", FlavorID: "f-a100", ImageID: "img-kashi", BootDiskType: "SSD", BootDiskSize: 100,
		VpcID: "vpc-1", OnDemand: true, NetworkCardList: []networkCard{{IsMaster: true, SubnetID: "subnet-1"}}, ExtIP: "0",
		SecGroupList: []string{"sg-1"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("create-instance body (-want +got):\n%s", diff)
	}
	run := waitRunning(t, p, "a100-0001")
	if diff := cmp.Diff(req("a100-0001").Tags, run.Tags); diff != "" {
		t.Errorf("listed machine's tags (-want +got):\n%s", diff)
	}
	if run.ID != m.ID || run.Flavor != "pi7.8xlarge.a100" || !run.CreatedAt.Equal(time.Date(2024, 1, 2, 7, 4, 5, 0, time.UTC)) {
		t.Errorf("listed machine = %+v, want id %s, the flavor and the creation time in UTC", run, m.ID)
	}
}

func TestInstanceName(t *testing.T) {
	for _, key := range []string{"a", "pool.a_1", strings.Repeat("k", 64)} {
		n := InstanceName(key)
		if len(n) > 63 || strings.ContainsAny(n, "._") || !strings.HasPrefix(n, "kashi-") {
			t.Errorf("InstanceName(%q) = %q, want at most 63 letters, digits and '-'", key, n)
		}
	}
	if a, b := InstanceName("k.1"), InstanceName("k-1"); a == b {
		t.Errorf("InstanceName(k.1) = InstanceName(k-1) = %q, want two names", a)
	}
}

// TestRestartWithoutOrdersAsksTheCloud drops the provider and its saved orders while an
// order is open, as a server killed between the cloud's answer and saving the order is, and
// asks a new one with the same key: the clientToken makes the cloud answer the first order,
// and the cloud holds one instance.
func TestRestartWithoutOrdersAsksTheCloud(t *testing.T) {
	f := newFakeCloud(t, testCreds)
	f.orderDelay = 100 * time.Millisecond
	first, err := newProvider(t, f, testCreds).Create(context.Background(), req("slot-1"))
	if err != nil {
		t.Fatal(err)
	}
	restarted := newProvider(t, f, testCreds)
	again, err := restarted.Create(context.Background(), req("slot-1"))
	if err != nil || again.ID != first.ID {
		t.Fatalf("Create after a restart = %+v, %v; want %s", again, err, first.ID)
	}
	waitRunning(t, restarted, "slot-1")
	// After the order finished, a third process finds the instance by name without ordering.
	calls := f.calls[pathCreate]
	if m, err := newProvider(t, f, testCreds).Create(context.Background(), req("slot-1")); err != nil || m.ID != first.ID || m.State != fleet.StateRunning {
		t.Errorf("Create once running = %+v, %v; want %s running", m, err, first.ID)
	}
	if f.calls[pathCreate] != calls {
		t.Errorf("create-instance called again for a running machine")
	}
	if n := f.live("kashi-slot-1"); n != 1 {
		t.Errorf("the cloud holds %d instances of slot-1, want 1", n)
	}
}

// TestDeleteWaitsForOrder deletes a machine whose order is still open: the instance is
// released once the order yields it.
func TestDeleteWaitsForOrder(t *testing.T) {
	f := newFakeCloud(t, testCreds)
	f.orderDelay = 50 * time.Millisecond
	p := newProvider(t, f, testCreds)
	m, err := p.Create(context.Background(), req("slot-2"))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Delete(context.Background(), m.ID); err != nil {
		t.Fatalf("Delete(%s) = %v", m.ID, err)
	}
	if n := f.live("kashi-slot-2"); n != 0 {
		t.Errorf("after Delete the cloud holds %d live instances, want 0", n)
	}
	if _, err := p.Get(context.Background(), m.ID); !errors.Is(err, fleet.ErrNotFound) && err != nil {
		t.Errorf("Get after Delete: %v", err)
	}
}

// TestListPages lists more instances than a page holds.
func TestListPages(t *testing.T) {
	f := newFakeCloud(t, testCreds)
	f.orderDelay = 0
	p := newProvider(t, f, testCreds)
	for _, k := range []string{"p1", "p2", "p3", "p4", "p5", "p6", "p7"} {
		if _, err := p.Create(context.Background(), req(k)); err != nil {
			t.Fatal(err)
		}
	}
	// A provider without the orders knows only the cloud's list.
	ms, err := newProvider(t, f, testCreds).List(context.Background(), "a100")
	if err != nil || len(ms) != 7 {
		t.Errorf("List = %d machines, %v; want 7", len(ms), err)
	}
}

func TestFlavors(t *testing.T) {
	f := newFakeCloud(t, testCreds)
	got, err := newProvider(t, f, testCreds).Flavors(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []fleet.Flavor{{Name: "pi7.8xlarge.a100", GPUs: 8, GPUModel: "A100", MemoryMiB: 80 * 1024, InterNodeGbps: 25},
		{Name: "gpu.test.8x", GPUs: 8, GPUModel: "T4", MemoryMiB: 16 * 1024}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Flavors (-want +got):\n%s", diff)
	}
}

// TestHourlyPrice: the list price of the pool's flavor comes from the price API as fen,
// rounded half up without floats, is asked once per hour, and an API failure is returned.
func TestHourlyPrice(t *testing.T) {
	f := newFakeCloud(t, testCreds)
	now := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	p := newProvider(t, f, testCreds)
	p.cfg.Now = func() time.Time { return now }
	ctx := context.Background()
	for range 2 {
		if fen, err := p.HourlyPrice(ctx, req("k")); err != nil || fen != 23813 {
			t.Fatalf("HourlyPrice = %d, %v; want 23813 fen (¥238.125 rounded)", fen, err)
		}
	}
	if n := f.calls[pathPrice]; n != 1 {
		t.Errorf("price API asked %d times within the hour, want 1", n)
	}
	now = now.Add(DefaultPriceTTL)
	f.fail[pathPrice] = fakeError{http: http.StatusForbidden, code: "Openapi.Permission.Denied"}
	_, err := p.HourlyPrice(ctx, req("k"))
	if !errors.Is(err, fleet.ErrAuth) {
		t.Errorf("HourlyPrice without the right to read prices = %v, want fleet.ErrAuth", err)
	}
	p.HourlyPrice(ctx, req("k"))
	if n := f.calls[pathPrice]; n != 2 {
		t.Errorf("price API asked %d times, want 2: a refusal stands for a while", n)
	}
}

func TestYuanToFen(t *testing.T) {
	for in, want := range map[string]int64{"0": 0, "12": 1200, "12.5": 1250, "0.125": 13, "0.124": 12, "3.999": 400, "7.10000": 710} {
		if got, err := yuanToFen(in); err != nil || got != want {
			t.Errorf("yuanToFen(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "-1", "1e3", "1.2.3", "abc", ".5"} {
		if _, err := yuanToFen(in); err == nil {
			t.Errorf("yuanToFen(%q): no error", in)
		}
	}
}
