package web_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"kashi/api"
	"kashi/models"
	"kashi/models/modelstest"
	"kashi/scheduler"
	"kashi/web"
	"kashi/web/webtest"
)

// watchListener tells when the server, having read every byte a client sent, asks for more:
// it waits for the rest of a body.
type watchListener struct {
	net.Listener
	mu   sync.Mutex
	cond *sync.Cond
	// asked maps a client's address to how many of its bytes the server had read when it
	// last asked for more.
	asked map[string]int64
}

func (l *watchListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &watchedConn{Conn: c, l: l}, nil
}

// waitAsked waits until the server asks for more of client's bytes after reading sent.
func (l *watchListener) waitAsked(client string, sent int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for l.asked[client] != int64(sent) {
		l.cond.Wait()
	}
}

type watchedConn struct {
	net.Conn
	l    *watchListener
	read atomic.Int64
}

func (c *watchedConn) Read(p []byte) (int, error) {
	c.l.mu.Lock()
	c.l.asked[c.RemoteAddr().String()] = c.read.Load()
	c.l.cond.Broadcast()
	c.l.mu.Unlock()
	n, err := c.Conn.Read(p)
	c.read.Add(int64(n))
	return n, err
}

// boundedServer serves the real router within lim through Kashi's http.Server on a real
// socket, with the user ana (password pw-ana), and returns its listener and base URL.
func boundedServer(t *testing.T, lim web.TestLimits) (*watchListener, string) {
	t.Helper()
	s := modelstest.SQLite(t, models.Options{})
	if _, err := s.CreateUser(context.Background(), "ana", "pw-ana", models.RoleUser, webtest.T0); err != nil {
		t.Fatal(err)
	}
	cfg := webtest.TestCfg()
	cfg.Sessions = models.SessionLimits{Idle: time.Hour, Absolute: 24 * time.Hour}
	h := web.NewAreas(s, &webtest.FakeSched{Loop: scheduler.NewLoop(s, scheduler.LoopConfig{})}, cfg,
		func() time.Time { return webtest.T0 })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &watchListener{Listener: ln, asked: map[string]int64{}}
	l.cond = sync.NewCond(&l.mu)
	srv := web.Server(web.NewLimited(h, lim))
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return l, "http://" + ln.Addr().String()
}

// slowBody opens a connection that sends a request's headers and the first bytes of a body
// it declares much longer, and returns the connection and how many bytes it sent.
func slowBody(t *testing.T, base, path, head string) (net.Conn, int) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	req := "POST " + path + " HTTP/1.1\r\nHost: kashi\r\n" + head
	n, err := c.Write([]byte(req))
	if err != nil {
		t.Fatal(err)
	}
	return c, n
}

// The slow-body attack, scaled down: more connections than the server admits at once each
// send a login's or a registration's headers and then hold back the body. The server reads
// bodies before it admits, so none of them holds a place: the health check, a login and an
// agent's registration are answered while they all wait.
func TestSlowBodiesTakeNoPlace(t *testing.T) {
	const inFlight = 4
	l, base := boundedServer(t, web.TestLimits{InFlight: inFlight})
	heads := []struct{ path, head string }{
		{"/login", "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\nusername=a"},
		{api.PathRegister, "Authorization: Bearer kj_guess\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"},
	}
	for i := range inFlight + 2 {
		h := heads[i%len(heads)]
		c, sent := slowBody(t, base, h.path, h.head)
		l.waitAsked(c.LocalAddr().String(), sent)
	}

	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Transport: &http.Transport{DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	do := func(what string, req *http.Request, want int) {
		t.Helper()
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("%s while slow bodies wait = %d, want %d", what, resp.StatusCode, want)
		}
	}
	get := func(path string) *http.Request {
		req, _ := http.NewRequest(http.MethodGet, base+path, nil)
		return req
	}
	do("GET /healthz", get("/healthz"), http.StatusOK)
	do("GET /login", get("/login"), http.StatusOK)
	u, _ := url.Parse(base)
	csrf := ""
	for _, ck := range jar.Cookies(u) {
		if ck.Name == "_csrf" {
			csrf = ck.Value
		}
	}
	login, _ := http.NewRequest(http.MethodPost, base+"/login",
		strings.NewReader(url.Values{"username": {"ana"}, "password": {"pw-ana"}, "_csrf": {csrf}}.Encode()))
	login.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	do("POST /login", login, http.StatusSeeOther)
	reg, _ := http.NewRequest(http.MethodPost, base+api.PathRegister,
		strings.NewReader(webtest.MustJSON(t, webtest.Node("n1").Cards(webtest.A100Name, webtest.A100MiB, 1).R)))
	reg.Header.Set("Authorization", "Bearer "+webtest.JoinToken)
	reg.Header.Set("Content-Type", "application/json")
	do("POST "+api.PathRegister, reg, http.StatusOK)
}

// answerOn reads the server's answer on c, failing the test shortly before its own deadline
// rather than waiting past it.
func answerOn(t *testing.T, c net.Conn) *http.Response {
	t.Helper()
	if d, ok := t.Deadline(); ok {
		c.SetReadDeadline(d.Add(-10 * time.Second))
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	resp.Body.Close()
	return resp
}

// A body that stops coming is answered 408 at its deadline, and one that declares more than
// its route takes is answered 413 before any of it is read; either way the connection is
// closed, not kept for the rest.
func TestBodiesAreBounded(t *testing.T) {
	_, base := boundedServer(t, web.TestLimits{BodyGrace: time.Millisecond})
	tests := map[string]struct {
		path, head string
		want       int
	}{
		"a stalled login": {"/login", "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 1000\r\n\r\nusername=a",
			http.StatusRequestTimeout},
		"a stalled chunked task": {"/api/v1/tasks", "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{\r\n",
			http.StatusRequestTimeout},
		"a login larger than forms": {"/login", "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 300000\r\n\r\n",
			http.StatusRequestEntityTooLarge},
		"samples larger than the agent's bound": {api.PathSamples, "Authorization: Bearer x\r\nContent-Type: application/json\r\nContent-Length: 8388609\r\n\r\n{",
			http.StatusRequestEntityTooLarge},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c, _ := slowBody(t, base, tc.path, tc.head)
			resp := answerOn(t, c)
			if resp.StatusCode != tc.want || !resp.Close {
				t.Errorf("%s = %d, close %v; want %d and the connection closed", name, resp.StatusCode, resp.Close, tc.want)
			}
		})
	}
}

// One client address may have 16 logins, and as many agent registrations, in flight at once
// (their bodies being read included); the next is refused at once with 429 while other
// addresses go on, and one ending makes room again.
func TestPerClientInFlight(t *testing.T) {
	const perClient = 16
	s := webtest.NewServer(t)
	if _, err := s.Store.CreateUser(context.Background(), "ana", "pw-ana", models.RoleUser, webtest.T0); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		path, contentType string
		hdr               []string
		// ok sends a good request from addr and returns its status, want the status.
		ok   func(addr string) int
		want int
	}{
		"login": {"/login", "application/x-www-form-urlencoded", nil,
			func(addr string) int { return s.Login("ana", "pw-ana", addr).Code }, http.StatusSeeOther},
		"registration": {api.PathRegister, "application/json", webtest.Bearer(webtest.JoinToken),
			func(addr string) int {
				node := webtest.MustJSON(t, webtest.Node("n-"+addr).Cards(webtest.A100Name, webtest.A100MiB, 1).R)
				code, _ := send(s, api.PathRegister, "application/json", addr, webtest.Bearer(webtest.JoinToken), strings.NewReader(node))
				return code
			}, http.StatusOK},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var held []*heldRequest
			for range perClient {
				held = append(held, hold(t, s, tc.path, tc.contentType, "192.0.2.1", tc.hdr))
			}
			code, retry := send(s, tc.path, tc.contentType, "192.0.2.1", tc.hdr, strings.NewReader("{}"))
			if code != http.StatusTooManyRequests || retry != "1" {
				t.Errorf("request %d from one address = %d Retry-After %q, want 429 after 1 s", perClient+1, code, retry)
			}
			if code := tc.ok("192.0.2.2"); code != tc.want {
				t.Errorf("from another address = %d, want %d", code, tc.want)
			}
			held[0].finish()
			if code, _ := send(s, tc.path, tc.contentType, "192.0.2.1", tc.hdr, strings.NewReader("{}")); code == http.StatusTooManyRequests {
				t.Errorf("after one ended = %d, want it served", code)
			}
			for _, h := range held[1:] {
				h.finish()
			}
		})
	}
}

// One client address may hold 16 MiB of bodies in memory at once (all addresses together,
// 256 MiB): past its share its next body is refused with 429, past everyone's with 503, and
// the bytes come back when the requests end.
func TestBodyMemoryBounded(t *testing.T) {
	s := webtest.NewServer(t)
	s.E = web.NewLimited(web.NewAreas(s.Store, s.Sched, webtest.TestCfg(), func() time.Time { return webtest.T0 }),
		web.TestLimits{ClientMemory: 100, Memory: 150})
	first := hold(t, s, "/api/v1/tasks", "application/json", "192.0.2.1", nil)
	first.send(t, strings.Repeat(" ", 98)) // 99 bytes of 192.0.2.1's 100
	if code, _ := send(s, "/api/v1/tasks", "application/json", "192.0.2.1", nil, strings.NewReader("{}")); code != http.StatusTooManyRequests {
		t.Errorf("a body past the address's share = %d, want 429", code)
	}
	second := hold(t, s, "/api/v1/tasks", "application/json", "192.0.2.2", nil)
	second.send(t, strings.Repeat(" ", 49)) // 150 of 150 in all
	if code, retry := send(s, "/api/v1/tasks", "application/json", "192.0.2.3", nil, strings.NewReader("{}")); code != http.StatusServiceUnavailable || retry != "1" {
		t.Errorf("a body past everyone's share = %d Retry-After %q, want 503 after 1 s", code, retry)
	}
	first.finish()
	second.finish()
	if code, _ := send(s, "/api/v1/tasks", "application/json", "192.0.2.1", nil, strings.NewReader("{}")); code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable {
		t.Errorf("a body after the others ended = %d, want it served", code)
	}
}

// heldRequest is a request whose body has begun and waits for the rest.
type heldRequest struct {
	body *io.PipeWriter
	done chan struct{}
}

// hold starts a POST of path from addr whose body's first byte is read (the request is in
// flight) and the rest held back until finish.
func hold(t *testing.T, s *webtest.Server, path, contentType, addr string, hdr []string) *heldRequest {
	t.Helper()
	pr, pw := io.Pipe()
	h := &heldRequest{body: pw, done: make(chan struct{})}
	go func() {
		defer close(h.done)
		send(s, path, contentType, addr, hdr, pr)
	}()
	h.send(t, "{")
	return h
}

// send writes more of the body and returns when the server has taken it and asks for more
// (an empty write waits for the next read); a request answered instead fails the test.
func (h *heldRequest) send(t *testing.T, more string) {
	t.Helper()
	taken := make(chan struct{})
	go func() {
		defer close(taken)
		h.body.Write([]byte(more))
		h.body.Write(nil)
	}()
	select {
	case <-taken:
	case <-h.done:
		t.Fatal("the request was answered without reading its body")
	}
}

// finish ends the held body and waits for the answer.
func (h *heldRequest) finish() {
	h.body.Close()
	<-h.done
}

// send POSTs body to path from addr through the router and returns the status and
// Retry-After of the answer.
func send(s *webtest.Server, path, contentType, addr string, hdr []string, body io.Reader) (int, string) {
	r := httptest.NewRequest(http.MethodPost, path, body)
	r.RemoteAddr = addr + ":40000"
	r.Header.Set("Content-Type", contentType)
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	s.E.ServeHTTP(w, r)
	return w.Code, w.Header().Get("Retry-After")
}
