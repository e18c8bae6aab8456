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
	"strings"
	"sync/atomic"
	"time"

	"kashi/api"
)

// Kinds of request the report tells apart.
const (
	KindRegister = "register"
	KindIngest   = "ingest"
	KindPoll     = "poll"
	KindLogin    = "login"
	KindBoard    = "board"
	KindSubmit   = "submit"
)

// do sends one request and records its latency under kind; an answer outside ok, or a
// failure to get one, is an error. It returns the status and body (nil on error).
func (g *gen) do(ctx context.Context, kind string, client *http.Client, req *http.Request, ok ...int) (int, []byte) {
	req = req.WithContext(ctx)
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return 0, nil // the run ended under it: not the server's fault
		}
		g.rec.fail(kind, err.Error())
		return 0, nil
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	if err != nil {
		g.rec.fail(kind, err.Error())
		return 0, nil
	}
	for _, code := range ok {
		if resp.StatusCode == code {
			g.rec.ok(kind, took)
			return resp.StatusCode, body
		}
	}
	if resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusTooManyRequests {
		g.rec.busy(kind) // an explicit "come back later": the client keeps its work and retries
		return resp.StatusCode, nil
	}
	g.rec.fail(kind, fmt.Sprintf("%d %s", resp.StatusCode, strings.TrimSpace(string(body[:min(len(body), 200)]))))
	return resp.StatusCode, nil
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
		code, body := g.do(ctx, KindRegister, g.client, g.jsonRequest(http.MethodPost, "/api/v1/agent/register", g.cfg.JoinToken, reg), http.StatusOK, http.StatusCreated)
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

// agent posts a sample of each GPU every SampleEvery and polls its assignments every
// PollEvery. A sample batch answered busy is kept and sent with the next one, as the agent
// spools.
func (g *gen) agent(ctx context.Context, i int, gpus []api.GPUInfo, token string) {
	go every(ctx, offset(i, g.cfg.Agents, g.cfg.PollEvery), g.cfg.PollEvery, func() {
		g.do(ctx, KindPoll, g.client, g.jsonRequest(http.MethodGet, "/api/v1/agent/assignments", token, nil), http.StatusOK)
	})
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
		if code, _ := g.do(ctx, KindIngest, g.client, g.jsonRequest(http.MethodPost, "/api/v1/agent/samples", token, req), http.StatusOK); code == http.StatusServiceUnavailable {
			kept = req.Samples[:min(len(req.Samples), 10*len(gpus))]
		}
	})
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

// viewer loads the board every ViewEvery.
func (g *gen) viewer(ctx context.Context, i int, client *http.Client) {
	every(ctx, offset(i, g.cfg.Viewers, g.cfg.ViewEvery), g.cfg.ViewEvery, func() {
		board, _ := http.NewRequest(http.MethodGet, g.base+"/", nil)
		g.do(ctx, KindBoard, client, board, http.StatusOK)
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
			for try := 0; ; try++ {
				req := g.jsonRequest(http.MethodPost, "/api/v1/tasks", g.cfg.APIToken, task)
				req.Header.Set("Idempotency-Key", key)
				code, _ := g.do(ctx, KindSubmit, g.client, req, http.StatusCreated, http.StatusOK)
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
