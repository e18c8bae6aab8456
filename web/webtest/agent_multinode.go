// What a node sees of its tasks through the agent API, and what it reports back.

package webtest

import (
	"net/http"

	"kashi/api"
)

// Assigned is the node's assignment of task id, and whether it has one.
func (s *Server) Assigned(n Registered, id int64) (api.Assignment, bool) {
	s.Tb.Helper()
	w := s.Get(api.PathAssignments, Bearer(n.Token)...)
	if w.Code != http.StatusOK {
		s.Tb.Fatalf("GET assignments = %d %s", w.Code, w.Body)
	}
	for _, a := range Decode[api.AssignmentsResponse](s.Tb, w).Tasks {
		if a.TaskID == id {
			return a, true
		}
	}
	return api.Assignment{}, false
}

// Report posts a node's status report of task id and fails the test unless it is 204.
func (s *Server) Report(n Registered, id int64, body string) {
	s.Tb.Helper()
	if w := s.Post(api.PathTaskStatus+IDStr(id)+"/status", body, Bearer(n.Token)...); w.Code != http.StatusNoContent {
		s.Tb.Fatalf("POST status %s of task %d = %d %s, want 204", body, id, w.Code, w.Body)
	}
}
