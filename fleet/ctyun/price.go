package ctyun

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"kashi/fleet"
)

// DefaultPriceTTL is how long a quoted price is used before it is asked again.
const DefaultPriceTTL = time.Hour

// pathPrice is the new-order price query (下单询价).
const pathPrice = "/v4/new-order/query-price"

// priceRequest is the body of new-order/query-price for one pay-as-you-go instance.
type priceRequest struct {
	RegionID     string `json:"regionID"`
	ResourceType string `json:"resourceType"`
	Count        int    `json:"count"`
	OnDemand     bool   `json:"onDemand"`
	FlavorName   string `json:"flavorName"`
	ImageUUID    string `json:"imageUUID"`
	SysDiskType  string `json:"sysDiskType"`
	SysDiskSize  int    `json:"sysDiskSize"`
}

// priceAnswer is new-order/query-price's returnObj: prices in yuan, as JSON numbers, read
// as decimals (never floats). TotalPrice is the list price; FinalPrice is after discounts.
type priceAnswer struct {
	TotalPrice json.Number `json:"totalPrice"`
	FinalPrice json.Number `json:"finalPrice"`
}

// priceKey is what a quote depends on.
type priceKey struct {
	region, flavor, image, diskType string
	diskGB                          int
}

// quote is an answer of the price API: a price, or the error, kept for PriceTTL (an error
// for at most priceRetry, so a key without the right to read prices is not asked every tick).
type quote struct {
	fen int64
	err error
	at  time.Time
}

// priceRetry is how long a failed quote stands before the API is asked again.
const priceRetry = 10 * time.Minute

// prices caches quotes for PriceTTL.
type prices struct {
	mu sync.Mutex
	m  map[priceKey]quote
}

// HourlyPrice implements fleet.Pricer: the list price (totalPrice) of one pay-as-you-go
// instance of the pool's flavor, image and boot disk for an hour, which is how on-demand
// instances are billed, quoted by new-order/query-price and kept for PriceTTL. A key pair
// without the right to read prices gets an *APIError of ClassAuth, kept for priceRetry.
func (p *Provider) HourlyPrice(ctx context.Context, req fleet.CreateRequest) (int64, error) {
	s, err := p.settings(ctx, req.Pool)
	if err != nil {
		return 0, err
	}
	k := priceKey{region: s.Region, flavor: req.Flavor, image: req.Image, diskType: s.DiskType, diskGB: s.DiskGB}
	now := p.cfg.Now()
	p.prices.mu.Lock()
	q, ok := p.prices.m[k]
	p.prices.mu.Unlock()
	if ok && (q.err == nil && now.Sub(q.at) < p.cfg.PriceTTL || q.err != nil && now.Sub(q.at) < min(priceRetry, p.cfg.PriceTTL)) {
		return q.fen, q.err
	}
	q = quote{at: now}
	ans, err := call[priceAnswer](ctx, p.c, pathPrice, nil, priceRequest{RegionID: s.Region, ResourceType: "VM", Count: 1,
		OnDemand: true, FlavorName: req.Flavor, ImageUUID: req.Image, SysDiskType: s.DiskType, SysDiskSize: s.DiskGB})
	if q.err = err; err == nil {
		if q.fen, q.err = yuanToFen(string(ans.TotalPrice)); q.err != nil {
			q.err = fmt.Errorf("ctyun: %s: totalPrice: %w", pathPrice, q.err)
		}
	}
	if ctx.Err() == nil {
		p.prices.mu.Lock()
		p.prices.m[k] = q
		p.prices.mu.Unlock()
	}
	return q.fen, q.err
}

// yuanToFen reads a non-negative decimal amount of yuan ("12", "12.5", "0.125") as fen,
// rounded half up, in integers only.
func yuanToFen(s string) (int64, error) {
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" || len(whole) > 12 || strings.Trim(whole, "0123456789") != "" || strings.Trim(frac, "0123456789") != "" {
		return 0, fmt.Errorf("not an amount in yuan: %q", s)
	}
	w, _ := strconv.ParseInt(whole, 10, 64)
	frac += "000"
	f, _ := strconv.ParseInt(frac[:3], 10, 64) // thousandths of a yuan
	fen := w*100 + f/10
	if f%10 >= 5 {
		fen++
	}
	return fen, nil
}

var _ fleet.Pricer = (*Provider)(nil)
