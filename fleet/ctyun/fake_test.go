package ctyun

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeCloud is an HTTPS fake of the five ECS calls and the price query. It recomputes every
// request's signature and refuses a wrong one, answers a clientToken seen before with its
// first answer, finishes orders after a delay, quotes prices, and answers the errors a test
// sets.
type fakeCloud struct {
	t     *testing.T
	creds Credentials
	srv   *httptest.Server
	// orderDelay is how long an order stays open.
	orderDelay time.Duration
	// maxPage caps list-instances pages, to exercise paging.
	maxPage int

	mu        sync.Mutex
	tokens    map[string][]byte // clientToken → the first answer
	orders    map[string]*fakeOrder
	instances []*fakeInstance
	flavors   []flavor
	// prices are the list prices per hour by flavor name, as the JSON numbers answered.
	prices  map[string]string
	soldOut bool
	// fail answers every call of a path with an error.
	fail map[string]fakeError
	// calls counts calls by path; badSigs counts refused signatures.
	calls   map[string]int
	badSigs int
	creates []createRequest
	seq     int
}

type fakeOrder struct {
	region  string
	doneAt  time.Time
	inst    *fakeInstance
	created bool
}

type fakeInstance struct {
	id, region string
	instance
}

type fakeError struct {
	http int
	code string
}

func newFakeCloud(t *testing.T, creds Credentials) *fakeCloud {
	f := &fakeCloud{t: t, creds: creds, orderDelay: 30 * time.Millisecond, maxPage: 3,
		prices: map[string]string{"pi7.8xlarge.a100": "238.125"},
		tokens: map[string][]byte{}, orders: map[string]*fakeOrder{}, fail: map[string]fakeError{}, calls: map[string]int{},
		flavors: []flavor{
			{FlavorID: "f-a100", FlavorName: "pi7.8xlarge.a100", GPUType: "A100", GPUCount: 8, VideoMemSize: 80, BaseBandwidth: 25.5},
			{FlavorID: "f-test", FlavorName: "gpu.test.8x", GPUType: "T4", GPUCount: 8, VideoMemSize: 16},
			{FlavorID: "f-cpu", FlavorName: "s7.large.2"},
		}}
	f.srv = httptest.NewTLSServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

// ExhaustCapacity makes every create-instance of a new clientToken sold out.
func (f *fakeCloud) ExhaustCapacity() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.soldOut = true
}

func (f *fakeCloud) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls[r.URL.Path]++
	date, id := r.Header.Get(headerDate), r.Header.Get(headerRequestID)
	if _, err := time.ParseInLocation(eopDateLayout, date, eopZone); err != nil || id == "" ||
		r.Header.Get(headerAuth) != f.creds.Signature(date, id, r.URL.Query(), body) {
		f.badSigs++
		f.answer(w, http.StatusUnauthorized, fakeError{code: "Openapi.Signature.Mismatch"}, nil)
		return
	}
	if e, ok := f.fail[r.URL.Path]; ok {
		f.answer(w, e.http, e, nil)
		return
	}
	wantMethod := http.MethodPost
	if r.URL.Path == pathQueryUUID || r.URL.Path == pathFlavors {
		wantMethod = http.MethodGet
	}
	if r.Method != wantMethod {
		f.answer(w, http.StatusMethodNotAllowed, fakeError{code: "Openapi.Method"}, nil)
		return
	}
	switch r.URL.Path {
	case pathCreate:
		var req createRequest
		json.Unmarshal(body, &req)
		f.create(w, req)
	case pathQueryUUID:
		f.queryUUID(w, r.URL.Query().Get("masterOrderID"))
	case pathList:
		var req listRequest
		json.Unmarshal(body, &req)
		f.list(w, req)
	case pathUnsubscribe:
		var req unsubscribeRequest
		json.Unmarshal(body, &req)
		f.unsubscribe(w, req)
	case pathPrice:
		var req priceRequest
		json.Unmarshal(body, &req)
		price, ok := f.prices[req.FlavorName]
		if !ok || !req.OnDemand || req.ResourceType != "VM" || req.Count != 1 || req.ImageUUID == "" {
			f.answer(w, http.StatusOK, fakeError{code: "Order.Price.InvalidParam"}, nil)
			return
		}
		w.Write([]byte(`{"statusCode":800,"returnObj":{"totalPrice":` + price + `,"discountPrice":1,"finalPrice":1}}`))
	case pathFlavors:
		name := r.URL.Query().Get("flavorName")
		var out []flavor
		for _, fl := range f.flavors {
			if name == "" || strings.Contains(fl.FlavorName, name) {
				out = append(out, fl)
			}
		}
		f.answer(w, http.StatusOK, fakeError{}, flavorAnswer{TotalCount: len(out), Results: out})
	default:
		f.answer(w, http.StatusNotFound, fakeError{code: "Openapi.NotFound"}, nil)
	}
}

// answer writes an envelope: a success with obj when e.code is empty.
func (f *fakeCloud) answer(w http.ResponseWriter, status int, e fakeError, obj any) []byte {
	env := envelope[any]{StatusCode: statusOK, ReturnObj: obj}
	if e.code != "" {
		env = envelope[any]{StatusCode: 900, ErrorCode: e.code, Message: "fake " + e.code}
	}
	b, _ := json.Marshal(env)
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	w.Write(b)
	return b
}

func (f *fakeCloud) create(w http.ResponseWriter, req createRequest) {
	if b, ok := f.tokens[req.ClientToken]; ok {
		w.Write(b)
		return
	}
	if f.soldOut {
		f.answer(w, http.StatusOK, fakeError{code: "Ecs.Flavor.SoldOut"}, nil)
		return
	}
	f.creates = append(f.creates, req)
	f.seq++
	orderID := fmt.Sprintf("order-%d", f.seq)
	in := &fakeInstance{id: fmt.Sprintf("i-%04d", f.seq), region: req.RegionID, instance: instance{
		InstanceName: req.InstanceName, DisplayName: req.DisplayName, InstanceStatus: "running", AzName: req.AzName,
		CreatedTime: "2024-01-02 15:04:05", LabelList: req.LabelList}}
	in.InstanceID = in.id
	for _, fl := range f.flavors {
		if fl.FlavorID == req.FlavorID {
			in.Flavor = fl
		}
	}
	f.orders[orderID] = &fakeOrder{region: req.RegionID, doneAt: time.Now().Add(f.orderDelay), inst: in}
	f.tokens[req.ClientToken] = f.answer(w, http.StatusOK, fakeError{}, orderAnswer{MasterOrderID: orderID, RegionID: req.RegionID})
}

// finish turns every order past its delay into its instance. It runs under the lock.
func (f *fakeCloud) finish() {
	for _, o := range f.orders {
		if !o.created && !time.Now().Before(o.doneAt) {
			o.created = true
			f.instances = append(f.instances, o.inst)
		}
	}
}

func (f *fakeCloud) queryUUID(w http.ResponseWriter, orderID string) {
	f.finish()
	o, ok := f.orders[orderID]
	if !ok {
		f.answer(w, http.StatusOK, fakeError{code: "Order.NotFound"}, nil)
		return
	}
	st := orderStatus{OrderStatus: "1", ResourceType: "VM"}
	if o.created {
		st = orderStatus{OrderStatus: "3", ResourceType: "VM", ResourceUUID: []string{o.inst.id}}
	}
	f.answer(w, http.StatusOK, fakeError{}, st)
}

func (f *fakeCloud) list(w http.ResponseWriter, req listRequest) {
	f.finish()
	var match []instance
	for _, in := range f.instances {
		if in.region == req.RegionID && (req.AzName == "" || req.AzName == in.AzName) &&
			strings.Contains(in.InstanceName, req.InstanceName) && hasLabels(in.LabelList, req.LabelList) {
			match = append(match, in.instance)
		}
	}
	size := min(max(req.PageSize, 1), f.maxPage)
	pages := (len(match) + size - 1) / size
	from := min((max(req.PageNo, 1)-1)*size, len(match))
	page := match[from:min(from+size, len(match))]
	f.answer(w, http.StatusOK, fakeError{}, listAnswer{CurrentCount: len(page), TotalCount: len(match), TotalPage: pages, Results: page})
}

func hasLabels(have, want []label) bool {
	for _, w := range want {
		found := false
		for _, h := range have {
			found = found || h == w
		}
		if !found {
			return false
		}
	}
	return true
}

func (f *fakeCloud) unsubscribe(w http.ResponseWriter, req unsubscribeRequest) {
	if b, ok := f.tokens[req.ClientToken]; ok {
		w.Write(b)
		return
	}
	for _, in := range f.instances {
		if in.id == req.InstanceID && in.region == req.RegionID && in.InstanceStatus != "unsubscribed" {
			in.InstanceStatus = "unsubscribed"
			f.seq++
			f.tokens[req.ClientToken] = f.answer(w, http.StatusOK, fakeError{}, orderAnswer{MasterOrderID: fmt.Sprintf("order-%d", f.seq)})
			return
		}
	}
	f.answer(w, http.StatusOK, fakeError{code: "Ecs.Instance.NotFound"}, nil)
}

// live counts the instances not unsubscribed, and the orders not finished, of a display name.
func (f *fakeCloud) live(displayName string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, o := range f.orders {
		if o.inst.DisplayName == displayName && o.inst.InstanceStatus != "unsubscribed" {
			n++
		}
	}
	return n
}
