package agent_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"kashi/api"
	"kashi/web/webtest"
)

// poll sends a long poll of node's assignments in the background; its answer comes on the
// channel.
func poll(s *webtest.Server, token, etag string) <-chan *httptest.ResponseRecorder {
	out := make(chan *httptest.ResponseRecorder, 1)
	go func() {
		out <- s.Get(api.PathAssignments+"?wait=60s", "Authorization", "Bearer "+token, "If-None-Match", etag)
	}()
	return out
}

// answer takes a long poll's answer. The wait asked is 60 s and the handlers' clock stands
// still: an answer before the bound comes from a wake, and the bound only ends a broken test.
func answer(t *testing.T, ch <-chan *httptest.ResponseRecorder, what string) api.AssignmentsResponse {
	t.Helper()
	select {
	case w := <-ch:
		if w.Code != http.StatusOK {
			t.Fatalf("%s: long poll = %d %s, want 200", what, w.Code, w.Body)
		}
		return webtest.Decode[api.AssignmentsResponse](t, w)
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: the long poll was not answered", what)
		return api.AssignmentsResponse{}
	}
}

// An agent's long poll answers at once when its list changed since the ETag it sent, and
// otherwise when the scheduler places a task on its node or a stop is asked there; a second
// request of the node ends the first one's wait.
func TestAssignmentsLongPoll(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		nodes := webtest.TaskFleet(s)
		tok := nodes["n1"].Token
		first := s.Get(api.PathAssignments+"?wait=60s", webtest.Bearer(tok)...)
		if first.Code != http.StatusOK || first.Header().Get(api.HeaderAssignmentsWait) != "1m0s" || first.Header().Get("ETag") == "" {
			t.Fatalf("first long poll = %d %v, want 200 at once with an ETag and the wait honoured", first.Code, first.Header())
		}
		empty := first.Header().Get("ETag")

		// Placed: the waiting request answers with the task.
		waiting := poll(s, tok, empty)
		tk := s.Create(webtest.Task("placed").Ready(), webtest.T0)
		s.Place(tk, webtest.T0, "GPU-n1-1")
		if got := answer(t, waiting, "placement"); len(got.Tasks) != 1 || got.Tasks[0].TaskID != tk.ID || got.Tasks[0].Stop {
			t.Fatalf("after the placement the long poll answered %+v, want task %d", got.Tasks, tk.ID)
		}
		// An agent that did not see that answer (its ETag is the empty list's) gets it at once.
		w := s.Get(api.PathAssignments+"?wait=60s", "Authorization", "Bearer "+tok, "If-None-Match", empty)
		placed := w.Header().Get("ETag")
		if got := webtest.Decode[api.AssignmentsResponse](t, w); len(got.Tasks) != 1 || placed == empty {
			t.Fatalf("a stale ETag got %+v (ETag %s), want the task at once with a new ETag", got.Tasks, placed)
		}
		if at, err := time.Parse(time.RFC3339Nano, w.Header().Get(api.HeaderAssignmentsChanged)); err != nil || at.IsZero() {
			t.Errorf("%s = %q, want when the placement changed the node's list", api.HeaderAssignmentsChanged, w.Header().Get(api.HeaderAssignmentsChanged))
		}

		// Cancelled: the waiting request answers with the stop.
		waiting = poll(s, tok, placed)
		if w := s.Post("/api/v1/tasks/"+webtest.IDStr(tk.ID)+"/cancel", ""); w.Code != http.StatusOK {
			t.Fatalf("cancel = %d %s", w.Code, w.Body)
		}
		if got := answer(t, waiting, "cancel"); len(got.Tasks) != 1 || !got.Tasks[0].Stop {
			t.Fatalf("after the cancel the long poll answered %+v, want task %d to stop", got.Tasks, tk.ID)
		}

		// Two requests of one node (after the task's exit): one of them ends at once with the
		// list unchanged, the other waits for the next change.
		body := `{"state":"exited","exit_code":0,"ts":"2026-03-02T09:00:00Z"}`
		if w := s.Post(api.PathTaskStatus+webtest.IDStr(tk.ID)+"/status", body, webtest.Bearer(tok)...); w.Code != http.StatusNoContent {
			t.Fatalf("exit report = %d %s", w.Code, w.Body)
		}
		w = s.Get(api.PathAssignments, webtest.Bearer(tok)...)
		a, b := poll(s, tok, w.Header().Get("ETag")), poll(s, tok, w.Header().Get("ETag"))
		var ended *httptest.ResponseRecorder
		left := a
		select {
		case ended = <-a:
			left = b
		case ended = <-b:
		case <-time.After(30 * time.Second):
			t.Fatal("neither of two requests of one node ended")
		}
		if got := webtest.Decode[api.AssignmentsResponse](t, ended); ended.Code != http.StatusOK || len(got.Tasks) != 0 {
			t.Fatalf("the replaced request answered %d %+v, want the list unchanged", ended.Code, got.Tasks)
		}
		next := s.Create(webtest.Task("next").Ready(), webtest.T0)
		s.Place(next, webtest.T0, "GPU-n1-0")
		if got := answer(t, left, "placement after a replacement"); len(got.Tasks) != 1 || got.Tasks[0].TaskID != next.ID {
			t.Fatalf("the remaining request answered %+v, want task %d", got.Tasks, next.ID)
		}
	})
}

func TestAssignmentsWaitBadInput(t *testing.T) {
	s := webtest.NewServer(t)
	nodes := webtest.TaskFleet(s)
	for _, bad := range []string{"soon", "-1s", "61s", "1h", "30"} {
		w := s.Get(api.PathAssignments+"?wait="+bad, webtest.Bearer(nodes["n1"].Token)...)
		webtest.WantAPIError(t, "GET assignments?wait="+bad, w, http.StatusBadRequest, api.QueryWait)
	}
}
