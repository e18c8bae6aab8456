// The pools tests' server, and HTML forms posted and read back.

package webtest

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/phrase"
)

// A100Config is the configuration of the fixtures' pool "a100": 1 to 6 nodes of 8 A100s.
func A100Config() models.PoolConfig {
	return models.PoolConfig{Provider: "sim", Spec: "A100-80G", GPUsPerNode: 8, Flavor: "gpu.a100.8x", Image: "kashi-agent",
		Region: "cn-gz1", Zone: "cn-gz1-a", Enabled: true, MinNodes: 1, MaxNodes: 6, ScaleUpDelayS: 120}
}

// PoolServer is a server whose handlers wake a counted scaler, with the pool "a100"
// configured, one node registered in it, two scaling events, the loop's last status and an
// hour of size history.
type PoolServer struct {
	*Server
	Scales *atomic.Int64 // how many times the handlers woke the scaler
	pool   models.ConfiguredPool
}

// NewPoolServer builds a PoolServer over a fresh SQLite store.
func NewPoolServer(t *testing.T) PoolServer {
	t.Helper()
	var scales atomic.Int64
	cfg := TestCfg()
	cfg.ScaleTrigger = func() { scales.Add(1) }
	s := NewServerOn(t, modelstest.SQLite(t, models.Options{}), cfg)
	ctx := context.Background()
	p, err := s.Store.SavePoolConfig(ctx, "a100", A100Config(), "tester", "first", T0.Add(-2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	s.Register(Node("a100-01").InPool("a100").Cards(A100Name, A100MiB, 8))
	events := []models.ScalingEvent{
		{Kind: "scale-up", FromSize: 4, ToSize: 5, Reason: "demand-waiting",
			Detail: phrase.Of(phrase.New("demand_waited", phrase.N(24), phrase.Dur(3*time.Minute), phrase.Dur(2*time.Minute)),
				phrase.New("memory_high", phrase.Pct(86), phrase.Pct(80), phrase.Dur(5*time.Minute))).Encode()},
		{Kind: "drain", FromSize: 5, ToSize: 4, Reason: "node-unneeded",
			Detail: phrase.Of(phrase.New("empty_long_enough", phrase.ID(3), phrase.Dur(12*time.Minute), phrase.Dur(10*time.Minute)),
				phrase.New("memory_low", phrase.Pct(12), phrase.Pct(20), phrase.Dur(10*time.Minute)),
				phrase.New("node_empty_for", phrase.ID(3), phrase.Dur(12*time.Minute))).Encode()},
	}
	for i, ev := range events {
		if err := s.Store.RecordScalingEvent(ctx, p.ID, ev, T0.Add(time.Duration(i-30)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	skips := []models.PoolSkip{{Reason: "at-max-size", Detail: phrase.Of(phrase.New("size_at_max", phrase.N(6), phrase.N(6))).Encode()},
		{Reason: "in-cooldown", Detail: phrase.Of(phrase.New("cooldown_up", phrase.Dur(3*time.Minute), phrase.Dur(10*time.Minute))).Encode()}}
	if err := s.Store.SetPoolScaleStatus(ctx, p.ID, 4, 4, skips, T0.Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	for i := range 60 {
		size := 4
		if i >= 30 && i < 31 {
			size = 5
		}
		if err := s.Store.RecordPoolSize(ctx, p.ID, size, size, 8*i/10, T0.Add(time.Duration(i-60)*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	return PoolServer{Server: s, Scales: &scales, pool: p}
}

// FailBoots has n machines of the pool a100 fail to boot (time out) one hour apart, the last
// at T0, against a limit of 3 in a row; their keys are prefix and 1, 2, ….
func (s PoolServer) FailBoots(prefix string, n int) {
	s.Tb.Helper()
	ctx := context.Background()
	for i := range n {
		key := prefix + strconv.Itoa(i+1)
		at := T0.Add(time.Duration(i-n+1) * time.Hour)
		if err := s.Store.RecordScaleUp(ctx, s.pool.ID, []string{key}, models.ScalingEvent{Kind: "scale-up"}, at.Add(-16*time.Minute)); err != nil {
			s.Tb.Fatal(err)
		}
		detail := phrase.Of(phrase.New("boot_timeout", phrase.S("i-"+key+" ("+key+")"), phrase.Dur(15*time.Minute), phrase.Dur(16*time.Minute)))
		if _, _, err := s.Store.RecordBootFailure(ctx, models.BootFailure{PoolID: s.pool.ID, Key: key, Reason: "boot-timeout",
			Detail: detail.Encode(), Limit: 3}, at); err != nil {
			s.Tb.Fatal(err)
		}
	}
}

// Form posts an HTML form with the admin's token (no CSRF needed with a bearer token).
func (s *Server) Form(path string, values url.Values, hdr ...string) *http.Response {
	s.Tb.Helper()
	h := Pairs(hdr)
	h["Content-Type"] = "application/x-www-form-urlencoded"
	w := s.Do(Req{Method: http.MethodPost, Path: path, Body: values.Encode(), Hdr: h})
	return w.Result()
}

// DocOf parses the body of resp.
func DocOf(t *testing.T, resp *http.Response) *goquery.Document {
	t.Helper()
	defer resp.Body.Close()
	doc, err := goquery.NewDocumentFromReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}
