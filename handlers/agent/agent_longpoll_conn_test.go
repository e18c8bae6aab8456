package agent_test

import (
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"kashi/api"
	"kashi/web/webtest"
)

// A long poll over a real connection leaves the server's handling while it waits: its
// connection is taken over (hijacked), and answered on when the node is given a task, when
// its wait ends, or when a later request of the node takes its place; each answer carries the
// headers an answer at once carries, and closes the connection.
func TestLongPollWaitsOffTheServer(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		tok := webtest.TaskFleet(s)["n1"].Token
		srv := httptest.NewUnstartedServer(s.E)
		taken := make(chan struct{}, 8)
		srv.Config.ConnState = func(_ net.Conn, st http.ConnState) {
			if st == http.StateHijacked {
				taken <- struct{}{}
			}
		}
		srv.Start()
		defer srv.Close()
		get := func(etag, wait string) *http.Response {
			req, _ := http.NewRequest(http.MethodGet, srv.URL+api.PathAssignments+"?wait="+wait, nil)
			req.Header.Set("Authorization", "Bearer "+tok)
			if etag != "" {
				req.Header.Set("If-None-Match", etag)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Errorf("long poll: %v", err)
				return nil
			}
			return res
		}
		poll := func(etag, wait string) <-chan *http.Response {
			out := make(chan *http.Response, 1)
			go func() { out <- get(etag, wait) }()
			return out
		}
		took := func(what string) {
			t.Helper()
			select {
			case <-taken:
			case <-time.After(30 * time.Second):
				t.Fatalf("%s: the waiting request's connection was not taken over", what)
			}
		}
		answered := func(ch <-chan *http.Response, what string) (*http.Response, api.AssignmentsResponse) {
			t.Helper()
			var res *http.Response
			select {
			case res = <-ch:
			case <-time.After(30 * time.Second):
				t.Fatalf("%s: the long poll was not answered", what)
			}
			if res == nil {
				t.FailNow()
			}
			defer res.Body.Close()
			var got api.AssignmentsResponse
			if res.StatusCode != http.StatusOK || json.NewDecoder(res.Body).Decode(&got) != nil {
				t.Fatalf("%s: long poll = %d, want 200 with the list", what, res.StatusCode)
			}
			if !res.Close || res.Header.Get(api.HeaderAssignmentsWait) != "1m0s" && res.Header.Get(api.HeaderAssignmentsWait) != "50ms" {
				t.Errorf("%s: close %v, header %v: want the connection closed and the wait said", what, res.Close, res.Header)
			}
			return res, got
		}

		first := get("", "60s")
		first.Body.Close()
		empty := first.Header.Get("ETag")
		if first.StatusCode != http.StatusOK || empty == "" {
			t.Fatalf("first long poll = %d %v, want 200 at once with an ETag", first.StatusCode, first.Header)
		}

		// Placed: the waiting request answers on its connection with the task.
		waiting := poll(empty, "60s")
		took("placement")
		tk := s.Create(webtest.Task("placed").Ready(), webtest.T0)
		s.Place(tk, webtest.T0, "GPU-n1-1")
		res, got := answered(waiting, "placement")
		if len(got.Tasks) != 1 || got.Tasks[0].TaskID != tk.ID || res.Header.Get("ETag") == empty || res.Header.Get(api.HeaderAssignmentsChanged) == "" {
			t.Fatalf("after the placement: %+v, header %v; want task %d with a new ETag and when it changed", got.Tasks, res.Header, tk.ID)
		}
		for _, h := range []string{"Content-Type", "X-Content-Type-Options"} {
			if res.Header.Get(h) != first.Header.Get(h) {
				t.Errorf("%s = %q on the taken-over answer, %q on an answer at once", h, res.Header.Get(h), first.Header.Get(h))
			}
		}
		placed := res.Header.Get("ETag")

		// The wait's end: the list unchanged, as it stands.
		waiting = poll(placed, "50ms")
		took("the wait's end")
		if res, got := answered(waiting, "the wait's end"); len(got.Tasks) != 1 || res.Header.Get("ETag") != placed {
			t.Fatalf("at the wait's end: %+v, ETag %s; want the list unchanged", got.Tasks, res.Header.Get("ETag"))
		}

		// A later request of the node ends the wait of the earlier one, which answers at once.
		earlier := poll(placed, "60s")
		took("the earlier request")
		later := poll(placed, "60s")
		if res, _ := answered(earlier, "the replaced request"); res.Header.Get("ETag") != placed {
			t.Fatalf("the replaced request answered ETag %s, want the list unchanged", res.Header.Get("ETag"))
		}
		took("the later request")
		if w := s.Post("/api/v1/tasks/"+webtest.IDStr(tk.ID)+"/cancel", ""); w.Code != http.StatusOK {
			t.Fatalf("cancel = %d %s", w.Code, w.Body)
		}
		if _, got := answered(later, "cancel"); len(got.Tasks) != 1 || !got.Tasks[0].Stop {
			t.Fatalf("after the cancel the later request answered %+v, want task %d to stop", got.Tasks, tk.ID)
		}
	})
}
