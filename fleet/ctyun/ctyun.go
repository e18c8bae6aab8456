// Package ctyun is a fleet.Provider for China Telecom Cloud (天翼云): it creates, lists and
// releases pay-as-you-go GPU instances through the ECS OpenAPI v4, signed with the EOP AK/SK
// signature (sign.go).
//
// A machine's id is "<regionID>/<instanceName>"; the name is derived from the idempotency
// key, so it is known before the cloud is called and stays the same from order to instance.
// The key is also the call's clientToken, so asking again with the key (after a crash or a
// timeout) answers the first order instead of a second one, and the instance carries Kashi's
// tags as labels, so List finds the pool's instances. Creation is asynchronous: Create saves
// the order (Orders, the database) as soon as the cloud answers it and returns; List and Get
// poll the saved open orders until their instance appears, so a restarted server polls the
// orders its predecessor placed and never orders their machines again.
package ctyun

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"kashi/fleet"
)

// DefaultEndpoint is the ECS OpenAPI v4 endpoint.
const DefaultEndpoint = "https://ctecs-global.ctapi.ctyun.cn"

// Defaults of Config and PoolSettings.
const (
	DefaultTimeout   = 30 * time.Second
	DefaultPollEvery = 5 * time.Second
	DefaultOrderWait = 2 * time.Minute
	DefaultDiskType  = "SSD"
	DefaultDiskGB    = 100
)

// pageSize is how many instances one list-instances page asks for.
const pageSize = 50

// PoolSettings are one pool's cloud settings.
type PoolSettings struct {
	// Region is the regionID and Zone the azName (empty for a region without zones).
	Region, Zone string
	// VPC, Subnet and SecurityGroup are ids; the instance gets one NIC in Subnet.
	VPC, Subnet, SecurityGroup string
	// DiskType is the boot disk's type (SATA, SAS, SSD) and DiskGB its size; zero values
	// mean DefaultDiskType and DefaultDiskGB.
	DiskType string
	DiskGB   int
}

// Zone is a region and zone some pool uses.
type Zone struct {
	Region, Zone string
}

// Pools tells the provider the cloud settings of Kashi's pools.
type Pools interface {
	// Settings returns the settings of pool.
	Settings(ctx context.Context, pool string) (PoolSettings, error)
	// Zones returns the regions and zones of the pools, where Flavors looks.
	Zones(ctx context.Context) ([]Zone, error)
}

// Order is a create order the cloud answered but whose instance is not listed yet.
type Order struct {
	// ID is the cloud's masterOrderID.
	ID string
	// Machine is what List and Get show until the instance is listed: its id, pool, key,
	// flavor, tags and when it was asked for.
	Machine fleet.Machine
}

// Orders keeps the open orders where a restarted server finds them: the database.
type Orders interface {
	// SaveOrder stores an open order (again: replaces the one of its machine's key).
	SaveOrder(ctx context.Context, o Order) error
	// OpenOrders returns the open orders.
	OpenOrders(ctx context.Context) ([]Order, error)
	// CloseOrder forgets the open order of the machine id, if any.
	CloseOrder(ctx context.Context, machineID string) error
}

// Config configures the provider.
type Config struct {
	Credentials Credentials
	// Endpoint is the API's base URL; empty means DefaultEndpoint.
	Endpoint string
	// HTTPClient makes the calls; nil means one with DefaultTimeout.
	HTTPClient *http.Client
	Pools      Pools
	Orders     Orders
	// UserData is the cloud-init the instances boot with (deploy/cloud-init.yaml rendered),
	// where @@POOL@@ stands for the pool and @@MACHINE_ID@@ for the idempotency key, which
	// the agent reports as its machine id. It holds the join token: it is never logged.
	UserData []byte
	// PollEvery is how often Delete polls an open order and OrderWait how long it waits;
	// zero means the defaults.
	PollEvery, OrderWait time.Duration
	// PriceTTL is how long a quoted price is used; zero means DefaultPriceTTL.
	PriceTTL time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Provider is the China Telecom Cloud provider.
type Provider struct {
	cfg Config
	c   *client
	// createMu serialises Creates, so that one key is asked for once at a time.
	createMu sync.Mutex
	prices   prices
}

// New checks cfg and returns the provider.
func New(cfg Config) (*Provider, error) {
	if cfg.Credentials.AK == "" || cfg.Credentials.SK == "" {
		return nil, errors.New("ctyun: access key and secret key are required")
	}
	if cfg.Pools == nil || cfg.Orders == nil {
		return nil, errors.New("ctyun: no pool settings or no order store")
	}
	if cfg.Endpoint == "" {
		cfg.Endpoint = DefaultEndpoint
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: DefaultTimeout}
	}
	if cfg.PollEvery <= 0 {
		cfg.PollEvery = DefaultPollEvery
	}
	if cfg.OrderWait <= 0 {
		cfg.OrderWait = DefaultOrderWait
	}
	if cfg.PriceTTL <= 0 {
		cfg.PriceTTL = DefaultPriceTTL
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	c := &client{creds: cfg.Credentials, endpoint: strings.TrimRight(cfg.Endpoint, "/"), http: cfg.HTTPClient, now: cfg.Now}
	return &Provider{cfg: cfg, c: c, prices: prices{m: make(map[priceKey]quote)}}, nil
}

// InstanceName is the instance name of key: "kashi-", the key with '.' and '_' made '-'
// (cut to 40 characters), '-' and 8 hex digits of the key's SHA-256, so that two keys never
// share a name.
func InstanceName(key string) string {
	sum := sha256.Sum256([]byte(key))
	s := strings.NewReplacer(".", "-", "_", "-").Replace(key)
	return "kashi-" + s[:min(len(s), 40)] + "-" + hex.EncodeToString(sum[:4])
}

// machineID is the id of the instance name in region.
func machineID(region, name string) string { return region + "/" + name }

// parseID splits a machine id; ok is false for an id this provider did not make.
func parseID(id string) (region, name string, ok bool) {
	region, name, ok = strings.Cut(id, "/")
	return region, name, ok && region != "" && name != ""
}

// Create implements fleet.Provider.
func (p *Provider) Create(ctx context.Context, req fleet.CreateRequest) (fleet.Machine, error) {
	if err := req.Validate(); err != nil {
		return fleet.Machine{}, err
	}
	s, err := p.settings(ctx, req.Pool)
	if err != nil {
		return fleet.Machine{}, err
	}
	p.createMu.Lock()
	defer p.createMu.Unlock()
	name := InstanceName(req.IdempotencyKey)
	id := machineID(s.Region, name)
	if o, err := p.order(ctx, id); err != nil || o != nil {
		if err != nil {
			return fleet.Machine{}, err
		}
		return o.Machine, nil
	}
	if in, err := p.instanceByName(ctx, s.Region, name); err != nil || in != nil {
		if err != nil {
			return fleet.Machine{}, err
		}
		return toMachine(s.Region, *in, req.Pool), nil
	}
	flavorID, err := p.flavorID(ctx, s, req.Flavor)
	if err != nil {
		return fleet.Machine{}, err
	}
	labels := make([]label, 0, len(req.Tags))
	for k, v := range req.Tags {
		labels = append(labels, label{Key: k, Value: v})
	}
	userData := strings.NewReplacer("@@POOL@@", req.Pool, "@@MACHINE_ID@@", req.IdempotencyKey).Replace(string(p.cfg.UserData))
	body := createRequest{ClientToken: req.IdempotencyKey, RegionID: s.Region, AzName: s.Zone, InstanceName: name,
		DisplayName: "kashi-" + req.IdempotencyKey, FlavorID: flavorID, ImageID: req.Image,
		BootDiskType: s.DiskType, BootDiskSize: s.DiskGB, VpcID: s.VPC, OnDemand: true,
		NetworkCardList: []networkCard{{IsMaster: true, SubnetID: s.Subnet}}, ExtIP: "0", LabelList: labels}
	if s.SecurityGroup != "" {
		body.SecGroupList = []string{s.SecurityGroup}
	}
	if userData != "" {
		body.UserData = base64.StdEncoding.EncodeToString([]byte(userData))
	}
	ans, err := call[orderAnswer](ctx, p.c, pathCreate, nil, body)
	if err != nil {
		return fleet.Machine{}, err
	}
	m := fleet.Machine{ID: id, Pool: req.Pool, IdempotencyKey: req.IdempotencyKey, State: fleet.StateCreating,
		Flavor: req.Flavor, Tags: req.Tags, CreatedAt: p.cfg.Now().UTC().Truncate(time.Second)}
	// Saved before anyone polls it: a restart polls this order rather than ordering again.
	if err := p.cfg.Orders.SaveOrder(ctx, Order{ID: ans.MasterOrderID, Machine: m.Clone()}); err != nil {
		return fleet.Machine{}, fmt.Errorf("ctyun: save order %s of %s: %w", ans.MasterOrderID, id, err)
	}
	return m, nil
}

// List implements fleet.Provider: the instances labelled with the pool, and the machines of
// the pool's open orders whose instance is not listed yet.
func (p *Provider) List(ctx context.Context, pool string) ([]fleet.Machine, error) {
	s, err := p.settings(ctx, pool)
	if err != nil {
		return nil, err
	}
	ins, err := p.instances(ctx, listRequest{RegionID: s.Region, AzName: s.Zone, LabelList: []label{{Key: fleet.TagPool, Value: pool}}})
	if err != nil {
		return nil, err
	}
	var out []fleet.Machine
	seen := make(map[string]bool)
	for _, in := range ins {
		m := toMachine(s.Region, in, pool)
		seen[m.ID] = true
		if in.InstanceStatus != "unsubscribed" {
			out = append(out, m)
		}
	}
	orders, err := p.openOrders(ctx, pool)
	if err != nil {
		return nil, err
	}
	for _, o := range orders {
		if seen[o.Machine.ID] {
			if err := p.forget(ctx, o.Machine.ID); err != nil {
				return nil, err
			}
			continue
		}
		m, err := p.poll(ctx, s.Region, o)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// Get implements fleet.Provider.
func (p *Provider) Get(ctx context.Context, id string) (fleet.Machine, error) {
	region, name, ok := parseID(id)
	if !ok {
		return fleet.Machine{}, fmt.Errorf("ctyun: machine %q: %w", id, fleet.ErrNotFound)
	}
	in, err := p.instanceByName(ctx, region, name)
	if err != nil {
		return fleet.Machine{}, err
	}
	if in != nil {
		return toMachine(region, *in, in.label(fleet.TagPool)), p.forget(ctx, id)
	}
	if o, err := p.order(ctx, id); err != nil || o != nil {
		if err != nil {
			return fleet.Machine{}, err
		}
		return p.poll(ctx, region, o)
	}
	return fleet.Machine{}, fmt.Errorf("ctyun: machine %q: %w", id, fleet.ErrNotFound)
}

// Delete implements fleet.Provider: it unsubscribes the instance, waiting up to OrderWait for
// an open order to yield it. A machine already gone, or whose order failed, is deleted.
func (p *Provider) Delete(ctx context.Context, id string) error {
	region, name, ok := parseID(id)
	if !ok {
		return nil
	}
	instanceID, err := p.instanceToRelease(ctx, region, name, id)
	if err != nil || instanceID == "" {
		return err
	}
	_, err = call[orderAnswer](ctx, p.c, pathUnsubscribe, nil,
		unsubscribeRequest{ClientToken: "del-" + instanceID, RegionID: region, InstanceID: instanceID})
	if err != nil {
		return err
	}
	return p.forget(ctx, id)
}

// instanceToRelease returns the id of the instance of name to unsubscribe, "" when there is
// none (any more).
func (p *Provider) instanceToRelease(ctx context.Context, region, name, id string) (string, error) {
	in, err := p.instanceByName(ctx, region, name)
	switch {
	case err != nil:
		return "", err
	case in != nil && (in.InstanceStatus == "unsubscribed" || in.InstanceStatus == "unsubscribing"):
		return "", p.forget(ctx, id)
	case in != nil:
		return in.InstanceID, nil
	}
	o, err := p.order(ctx, id)
	if err != nil || o == nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, p.cfg.OrderWait)
	defer cancel()
	for {
		st, err := call[orderStatus](ctx, p.c, pathQueryUUID, url.Values{"masterOrderID": {o.ID}}, nil)
		switch {
		case err != nil:
			return "", err
		case len(st.ResourceUUID) > 0:
			return st.ResourceUUID[0], nil
		case orderFailed(st.OrderStatus):
			return "", p.forget(ctx, id)
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("ctyun: order %s of %s still open: %w", o.ID, id, ctx.Err())
		case <-time.After(p.cfg.PollEvery):
		}
	}
}

// Flavors implements fleet.Provider: the GPU flavors of the pools' zones.
func (p *Provider) Flavors(ctx context.Context) ([]fleet.Flavor, error) {
	zones, err := p.cfg.Pools.Zones(ctx)
	if err != nil {
		return nil, err
	}
	var out []fleet.Flavor
	seen := make(map[string]bool)
	for _, z := range zones {
		fs, err := p.FlavorsIn(ctx, z.Region, z.Zone)
		if err != nil {
			return nil, err
		}
		for _, f := range fs {
			if !seen[f.Name] {
				seen[f.Name] = true
				out = append(out, f)
			}
		}
	}
	return out, nil
}

// FlavorsIn implements fleet.ZoneFlavorer: the GPU flavors of region and zone, MemoryMiB
// being each GPU's memory and InterNodeGbps the flavor's baseline bandwidth (whole Gb/s,
// rounded down).
func (p *Provider) FlavorsIn(ctx context.Context, region, zone string) ([]fleet.Flavor, error) {
	fa, err := call[flavorAnswer](ctx, p.c, pathFlavors, zoneQuery(region, zone), nil)
	if err != nil {
		return nil, err
	}
	var out []fleet.Flavor
	for _, f := range fa.Results {
		if f.GPUCount > 0 {
			out = append(out, fleet.Flavor{Name: f.FlavorName, GPUs: f.GPUCount, GPUModel: f.GPUType,
				MemoryMiB: int64(f.VideoMemSize) * 1024, InterNodeGbps: int(min(max(f.BaseBandwidth, 0), 1e6))})
		}
	}
	return out, nil
}

// settings returns pool's settings with defaults, or an error when one is missing.
func (p *Provider) settings(ctx context.Context, pool string) (PoolSettings, error) {
	s, err := p.cfg.Pools.Settings(ctx, pool)
	if err != nil {
		return s, fmt.Errorf("ctyun: pool %s: %w", pool, err)
	}
	if s.Region == "" {
		return s, fmt.Errorf("ctyun: pool %s has no region", pool)
	}
	if s.DiskType == "" {
		s.DiskType = DefaultDiskType
	}
	if s.DiskGB <= 0 {
		s.DiskGB = DefaultDiskGB
	}
	return s, nil
}

// flavorID returns the id of the flavor named (or with the id) name in the pool's zone.
func (p *Provider) flavorID(ctx context.Context, s PoolSettings, name string) (string, error) {
	q := zoneQuery(s.Region, s.Zone)
	q.Set("flavorName", name)
	fa, err := call[flavorAnswer](ctx, p.c, pathFlavors, q, nil)
	if err != nil {
		return "", err
	}
	for _, f := range fa.Results {
		if f.FlavorName == name || f.FlavorID == name {
			return f.FlavorID, nil
		}
	}
	return "", fmt.Errorf("ctyun: no flavor %q in %s %s", name, s.Region, s.Zone)
}

func zoneQuery(region, zone string) url.Values {
	q := url.Values{"regionID": {region}}
	if zone != "" {
		q.Set("azName", zone)
	}
	return q
}

// instanceByName returns the instance named name in region, nil when there is none.
func (p *Provider) instanceByName(ctx context.Context, region, name string) (*instance, error) {
	ins, err := p.instances(ctx, listRequest{RegionID: region, InstanceName: name})
	if err != nil {
		return nil, err
	}
	for _, in := range ins {
		if in.InstanceName == name {
			return &in, nil
		}
	}
	return nil, nil
}

// instances returns every page of list-instances for req.
func (p *Provider) instances(ctx context.Context, req listRequest) ([]instance, error) {
	var out []instance
	req.PageSize = pageSize
	for req.PageNo = 1; ; req.PageNo++ {
		la, err := call[listAnswer](ctx, p.c, pathList, nil, req)
		if err != nil {
			return nil, err
		}
		out = append(out, la.Results...)
		if req.PageNo >= la.TotalPage || len(la.Results) == 0 {
			return out, nil
		}
	}
}

// poll asks for the state of an open order: its machine while it is open, the machine as
// failed once the order failed.
func (p *Provider) poll(ctx context.Context, region string, o *Order) (fleet.Machine, error) {
	st, err := call[orderStatus](ctx, p.c, pathQueryUUID, url.Values{"masterOrderID": {o.ID}}, nil)
	if err != nil {
		return fleet.Machine{}, err
	}
	m := o.Machine.Clone()
	if orderFailed(st.OrderStatus) {
		m.State = fleet.StateFailed
		return m, p.forget(ctx, m.ID)
	}
	return m, nil
}

// orderFailed reports whether an orderStatus ends the order without an instance: 2
// (cancelled) and 4 (failed).
func orderFailed(status string) bool { return status == "2" || status == "4" }

// order returns the open order of the machine id, nil when there is none.
func (p *Provider) order(ctx context.Context, id string) (*Order, error) {
	orders, err := p.cfg.Orders.OpenOrders(ctx)
	if err != nil {
		return nil, fmt.Errorf("ctyun: open orders: %w", err)
	}
	for i := range orders {
		if orders[i].Machine.ID == id {
			return &orders[i], nil
		}
	}
	return nil, nil
}

// forget closes the open order of the machine id, if any.
func (p *Provider) forget(ctx context.Context, id string) error {
	if err := p.cfg.Orders.CloseOrder(ctx, id); err != nil {
		return fmt.Errorf("ctyun: close order of %s: %w", id, err)
	}
	return nil
}

// openOrders returns the open orders of pool.
func (p *Provider) openOrders(ctx context.Context, pool string) ([]*Order, error) {
	orders, err := p.cfg.Orders.OpenOrders(ctx)
	if err != nil {
		return nil, fmt.Errorf("ctyun: open orders: %w", err)
	}
	var out []*Order
	for i := range orders {
		if orders[i].Machine.Pool == pool {
			out = append(out, &orders[i])
		}
	}
	return out, nil
}

// label returns the value of the instance's label key.
func (in instance) label(key string) string {
	for _, l := range in.LabelList {
		if l.Key == key {
			return l.Value
		}
	}
	return ""
}

// instanceStates maps instance statuses to machine states; others count as creating.
var instanceStates = map[string]string{
	"running": fleet.StateRunning, "restarting": fleet.StateRunning,
	"unsubscribing": fleet.StateDeleting, "unsubscribed": fleet.StateDeleting,
	"error": fleet.StateFailed, "stopped": fleet.StateFailed, "stopping": fleet.StateFailed,
	"expired": fleet.StateFailed, "freezing": fleet.StateFailed,
}

// toMachine is the machine of an instance in region; pool is used when it has no pool label.
func toMachine(region string, in instance, pool string) fleet.Machine {
	tags := make(map[string]string, len(in.LabelList))
	for _, l := range in.LabelList {
		tags[l.Key] = l.Value
	}
	state, ok := instanceStates[in.InstanceStatus]
	if !ok {
		state = fleet.StateCreating
	}
	if p := tags[fleet.TagPool]; p != "" {
		pool = p
	}
	return fleet.Machine{ID: machineID(region, in.InstanceName), Pool: pool, IdempotencyKey: tags[fleet.TagKey],
		State: state, Flavor: in.Flavor.FlavorName, Tags: tags, CreatedAt: parseTime(in.CreatedTime)}
}

// chinaTime is UTC+8, the zone of times the API writes without one.
var chinaTime = time.FixedZone("CST", 8*3600)

// parseTime reads an instance's createdTime: RFC 3339, or "2006-01-02 15:04:05" in UTC+8.
func parseTime(s string) time.Time {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC()
	}
	if t, err := time.ParseInLocation(time.DateTime, s, chinaTime); err == nil {
		return t.UTC()
	}
	return time.Time{}
}

var _ fleet.Provider = (*Provider)(nil)
