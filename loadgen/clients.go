package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"kashi/api"
)

// Kinds of request the report tells apart.
const (
	KindRegister = "register"
	KindIngest   = "ingest"
	// KindPoll is an agent's assignments request: a long poll's latency is its wait, so
	// long polls are counted, not timed.
	KindPoll = "poll"
	// KindAssign is the time from the change of a node's assignments (the scheduler's
	// placement, as the server stamps it) to the new list in its agent's hands; KindStart
	// the time from a submit's request to its task there, the scheduler's pass included.
	KindAssign = "assign"
	KindStart  = "start"
	KindStatus = "status"
	KindLogin  = "login"
	KindBoard  = "board"
	KindSubmit = "submit"
)

// do sends one request and records its latency under kind; an answer outside ok, or a
// failure to get one, is an error. It returns the status and body (nil on error).
func (g *gen) do(ctx context.Context, kind string, client *http.Client, req *http.Request, ok ...int) (int, []byte) {
	code, body, _ := g.send(ctx, kind, client, req, true, ok...)
	return code, body
}

// send is do, timing the request only when timed, and returning the answer's headers too.
func (g *gen) send(ctx context.Context, kind string, client *http.Client, req *http.Request, timed bool, ok ...int) (int, []byte, http.Header) {
	req = req.WithContext(ctx)
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return 0, nil, nil // the run ended under it: not the server's fault
		}
		g.rec.fail(kind, err.Error())
		return 0, nil, nil
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	if err != nil {
		if ctx.Err() != nil {
			return 0, nil, nil
		}
		g.rec.fail(kind, err.Error())
		return 0, nil, nil
	}
	for _, code := range ok {
		if resp.StatusCode == code {
			if timed {
				g.rec.ok(kind, took)
			} else {
				g.rec.count(kind)
			}
			return resp.StatusCode, body, resp.Header
		}
	}
	if resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusTooManyRequests {
		g.rec.busy(kind) // an explicit "come back later": the client keeps its work and retries
		return resp.StatusCode, nil, resp.Header
	}
	g.rec.fail(kind, fmt.Sprintf("%d %s", resp.StatusCode, strings.TrimSpace(string(body[:min(len(body), 200)]))))
	return resp.StatusCode, nil, resp.Header
}

// ownContext is a child of the run's context for one simulated agent or viewer. Each
// request's timeout is a context derived from its caller's, and deriving one locks its
// parent: with 4,096 agents on the run's one context, that lock was waited on for about
// 6 s a minute, inside the timed requests (a mutex profile of the step test).
func ownContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithCancel(ctx)
}

// jsonRequest builds a JSON request with a bearer token.
func (g *gen) jsonRequest(method, path, token string, body any) *http.Request {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, g.base+path, rd)
	req.Header.Set("Authorization", "Bearer "+token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req
}

// register registers agent i's node of GPUsPerAgent GPUs and returns its GPUs and token
// ("" when it failed). A busy answer (the server limits the registrations of one address in
// flight) is retried, as the agent retries.
func (g *gen) register(ctx context.Context, i int) ([]api.GPUInfo, string) {
	host := fmt.Sprintf("load-%04d", i)
	reg := api.RegisterRequest{Hostname: host, Pool: "load"}
	for k := range g.cfg.GPUsPerAgent {
		reg.GPUs = append(reg.GPUs, api.GPUInfo{UUID: fmt.Sprintf("GPU-%s-%d", host, k), Index: k, Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920})
	}
	for try := 0; try < 5; try++ {
		code, body := g.do(ctx, KindRegister, g.client, g.jsonRequest(http.MethodPost, api.PathRegister, g.cfg.JoinToken, reg), http.StatusOK, http.StatusCreated)
		if code != http.StatusServiceUnavailable && code != http.StatusTooManyRequests {
			var rr api.RegisterResponse
			if body == nil || json.Unmarshal(body, &rr) != nil {
				return nil, ""
			}
			return reg.GPUs, rr.Token
		}
		g.rec.retry(KindRegister)
		select { // the server's Retry-After is one second
		case <-ctx.Done():
			return nil, ""
		case <-time.After(time.Second):
		}
	}
	return nil, ""
}

// agent posts a sample of each GPU every SampleEvery and follows its assignments: it runs
// each task it is given for TaskRuntime and then reports its exit (a task asked to stop, at
// once). A sample batch answered busy is kept and sent with the next one, as the agent
// spools.
func (g *gen) agent(ctx context.Context, i int, gpus []api.GPUInfo, token string) {
	ctx, cancel := ownContext(ctx)
	defer cancel()
	tasks := &nodeTasks{ends: map[int64]time.Time{}}
	go g.follow(ctx, i, token, tasks)
	n := 0
	var kept []api.Sample
	every(ctx, offset(i, g.cfg.Agents, g.cfg.SampleEvery), g.cfg.SampleEvery, func() {
		now := time.Now().UTC().Truncate(time.Second)
		req := api.SamplesRequest{Samples: kept}
		for k, gi := range gpus {
			util := (n*7 + k*13 + i) % 100
			req.Samples = append(req.Samples, api.Sample{UUID: gi.UUID, TS: now, MemoryUsedMiB: int64(util) * 800, UtilPct: util, TempC: 50, PowerW: 300})
		}
		n++
		kept = nil
		if code, _ := g.do(ctx, KindIngest, g.client, g.jsonRequest(http.MethodPost, api.PathSamples, token, req), http.StatusOK); code == http.StatusServiceUnavailable {
			kept = req.Samples[:min(len(req.Samples), 10*len(gpus))]
		}
		for _, id := range tasks.due(time.Now()) {
			g.do(ctx, KindStatus, g.client, g.jsonRequest(http.MethodPost, api.PathTaskStatus+strconv.FormatInt(id, 10)+"/status", token,
				api.TaskStatusRequest{State: api.TaskExited, TS: time.Now().UTC()}), http.StatusNoContent)
		}
	})
}

// follow asks for agent i's assignments until ctx ends: a long poll after another, sending
// the list's ETag and the tasks it runs as the agent does, or a poll every PollEvery when
// AssignmentsWait is zero. A failed request is sent again after PollEvery.
func (g *gen) follow(ctx context.Context, i int, token string, tasks *nodeTasks) {
	ctx, cancel := ownContext(ctx)
	defer cancel()
	ask := func(etag string) (string, bool) {
		q := url.Values{}
		if ids := tasks.running(); ids != "" {
			q.Set(api.QueryRunning, ids)
		}
		client := g.client
		if g.cfg.AssignmentsWait > 0 {
			q.Set(api.QueryWait, g.cfg.AssignmentsWait.String())
			client = g.longPoll
		}
		req := g.jsonRequest(http.MethodGet, api.PathAssignments+"?"+q.Encode(), token, nil)
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		asked := time.Now()
		code, body, hdr := g.send(ctx, KindPoll, client, req, g.cfg.AssignmentsWait == 0, http.StatusOK)
		var resp api.AssignmentsResponse
		if code != http.StatusOK || json.Unmarshal(body, &resp) != nil {
			return etag, false
		}
		at, fresh := time.Now(), false
		for _, as := range resp.Tasks {
			if tasks.take(as, at.Add(g.cfg.TaskRuntime)) {
				fresh = true
				g.placed.delivered(g.rec, as.TaskID, at)
			}
		}
		// Timed from the change when the request was waiting then: a change before it was
		// sent waited for the agent to ask, not for the server.
		if changed, err := time.Parse(time.RFC3339Nano, hdr.Get(api.HeaderAssignmentsChanged)); err == nil && fresh && changed.After(asked) {
			g.rec.ok(KindAssign, at.Sub(changed))
		}
		return hdr.Get("ETag"), true
	}
	if g.cfg.AssignmentsWait == 0 {
		every(ctx, offset(i, g.cfg.Agents, g.cfg.PollEvery), g.cfg.PollEvery, func() { ask("") })
		return
	}
	if sleepCtx(ctx, offset(i, g.cfg.Agents, g.cfg.SampleEvery)) != nil {
		return
	}
	etag := ""
	for ctx.Err() == nil {
		var ok bool
		if etag, ok = ask(etag); !ok && sleepCtx(ctx, g.cfg.PollEvery) != nil {
			return
		}
	}
}

// nodeTasks are the tasks a simulated agent runs, each with the time it exits.
type nodeTasks struct {
	mu   sync.Mutex
	ends map[int64]time.Time
	// done holds the tasks whose exit was reported, so a list that still names them (the
	// report crossed a long poll's answer) does not start them again.
	done map[int64]bool
}

// take starts an assigned task new to the node, to exit at end (at once when asked to stop),
// and reports whether it was new.
func (n *nodeTasks) take(as api.Assignment, end time.Time) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, ok := n.ends[as.TaskID]; ok || n.done[as.TaskID] {
		if as.Stop {
			n.ends[as.TaskID] = time.Time{}
		}
		return false
	}
	if as.Stop {
		end = time.Time{}
	}
	n.ends[as.TaskID] = end
	return true
}

// due removes and returns the tasks whose exit time has come.
func (n *nodeTasks) due(now time.Time) []int64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	var ids []int64
	for id, end := range n.ends {
		if !now.Before(end) {
			ids = append(ids, id)
			delete(n.ends, id)
			if n.done == nil {
				n.done = map[int64]bool{}
			}
			n.done[id] = true
		}
	}
	return ids
}

// running lists the running tasks' ids, comma-separated.
func (n *nodeTasks) running() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	ids := make([]string, 0, len(n.ends))
	for id := range n.ends {
		ids = append(ids, strconv.FormatInt(id, 10))
	}
	return strings.Join(ids, ",")
}

// deliveries pairs each submit's send time with its task's arrival at an agent, whichever
// comes first, and records the time between under KindStart.
type deliveries struct {
	mu        sync.Mutex
	sent, got map[int64]time.Time
}

func newDeliveries() *deliveries {
	return &deliveries{sent: map[int64]time.Time{}, got: map[int64]time.Time{}}
}

func (d *deliveries) submitted(rec *recorder, id int64, at time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if got, ok := d.got[id]; ok {
		delete(d.got, id)
		rec.ok(KindStart, got.Sub(at))
		return
	}
	d.sent[id] = at
}

func (d *deliveries) delivered(rec *recorder, id int64, at time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if sent, ok := d.sent[id]; ok {
		delete(d.sent, id)
		rec.ok(KindStart, at.Sub(sent))
		return
	}
	d.got[id] = at
}

// sleepCtx waits d, or returns ctx's error when it ends first.
func sleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// login logs a viewer in through the login form, as a browser does (CSRF cookie and form
// field), and returns its client (nil when it failed). A busy answer is retried: the viewers
// share one account, and the server checks at most five of an account's passwords at once.
func (g *gen) login(ctx context.Context) *http.Client {
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Transport: g.client.Transport, Timeout: g.client.Timeout, Jar: jar,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	form, _ := http.NewRequest(http.MethodGet, g.base+"/login", nil)
	if code, _ := g.do(ctx, KindLogin, client, form, http.StatusOK); code != http.StatusOK {
		return nil
	}
	u, _ := url.Parse(g.base + "/login")
	csrf := ""
	for _, ck := range jar.Cookies(u) {
		if ck.Name == "_csrf" {
			csrf = ck.Value
		}
	}
	vals := url.Values{"username": {g.cfg.ViewerName}, "password": {g.cfg.ViewerPassword}, "_csrf": {csrf}, "next": {"/"}}
	for try := 0; try < 30; try++ {
		login, _ := http.NewRequest(http.MethodPost, g.base+"/login", strings.NewReader(vals.Encode()))
		login.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		switch code, _ := g.do(ctx, KindLogin, client, login, http.StatusSeeOther); code {
		case http.StatusSeeOther:
			return client
		case http.StatusServiceUnavailable, http.StatusTooManyRequests:
			g.rec.retry(KindLogin)
			select { // the server's Retry-After is one second
			case <-ctx.Done():
				return nil
			case <-time.After(time.Second):
			}
		default:
			return nil
		}
	}
	return nil
}

// Views are the board's views the viewers load, each viewer starting at its own and going
// round: the full board, the compact grid, and both with the board's filters and sorts.
var Views = []string{"/", "/?view=grid", "/?view=grid&state=idle", "/?view=cards&sort=idle&pool=load", "/?view=grid&project=load&state=free"}

// viewer loads a board view every ViewEvery, sending the ETag it holds of that view as a
// browser does: an unchanged board answers 304.
func (g *gen) viewer(ctx context.Context, i int, client *http.Client) {
	ctx, cancel := ownContext(ctx)
	defer cancel()
	tags := make([]string, len(Views))
	n := i
	every(ctx, offset(i, g.cfg.Viewers, g.cfg.ViewEvery), g.cfg.ViewEvery, func() {
		v := n % len(Views)
		n++
		board, _ := http.NewRequest(http.MethodGet, g.base+Views[v], nil)
		if tags[v] != "" {
			board.Header.Set("If-None-Match", tags[v])
		}
		if code, _, hdr := g.send(ctx, KindBoard, client, board, true, http.StatusOK, http.StatusNotModified); code == http.StatusOK {
			tags[v] = hdr.Get("ETag")
		}
	})
}

// submitter submits SubmitRate one-GPU tasks a second, each in its own goroutine so that a
// slow answer does not slow the rate. A busy answer (429, 503) is retried after its
// Retry-After with the same Idempotency-Key, up to three times.
func (g *gen) submitter(ctx context.Context) {
	var seq, inFlight atomic.Int64
	const maxInFlight = 1000
	every(ctx, 0, time.Duration(float64(time.Second)/g.cfg.SubmitRate), func() {
		if inFlight.Load() >= maxInFlight {
			g.rec.fail(KindSubmit, "more than 1000 submits unanswered")
			return
		}
		inFlight.Add(1)
		go func() {
			defer inFlight.Add(-1)
			n := seq.Add(1)
			task := map[string]any{"project": g.cfg.Project, "name": fmt.Sprintf("load-%d", n), "gpus": 1, "spec": g.cfg.Spec,
				"queue": "short", "priority": "normal", "command": []string{"true"}, "max_runtime_s": 3600, "data_ready": true}
			key := fmt.Sprintf("loadgen-%d-%d", time.Now().UnixNano(), n)
			sent := time.Now()
			for try := 0; ; try++ {
				req := g.jsonRequest(http.MethodPost, "/api/v1/tasks", g.cfg.APIToken, task)
				req.Header.Set("Idempotency-Key", key)
				code, body := g.do(ctx, KindSubmit, g.client, req, http.StatusCreated, http.StatusOK)
				var created struct {
					ID int64 `json:"id"`
				}
				if body != nil && json.Unmarshal(body, &created) == nil && created.ID > 0 {
					g.placed.submitted(g.rec, created.ID, sent)
				}
				if code != http.StatusServiceUnavailable && code != http.StatusTooManyRequests || try == 3 {
					return
				}
				select { // the server's Retry-After is one second
				case <-ctx.Done():
					return
				case <-time.After(time.Second):
				}
			}
		}()
	})
}
