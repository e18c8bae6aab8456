// Helpers of the agent API's tests: a two-node fleet, sample counts and API error answers.

package webtest

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"kashi/api"
	"kashi/models"
)

// AgentFleet registers n1 (4 A100) and n2 (2 A100) an hour before T0, then sets the clock to T0.
func AgentFleet(s *Server) (n1, n2 Registered) {
	s.Tb.Helper()
	s.SetNow(T0.Add(-time.Hour))
	n1 = s.Register(Node("n1").InPool("a100").Cards(A100Name, A100MiB, 4))
	n2 = s.Register(Node("n2").InPool("a100").Cards(A100Name, A100MiB, 2))
	s.SetNow(T0)
	return n1, n2
}

// SampleCount is how many raw samples the store holds for uuid, read back through rollups.
func (s *Server) SampleCount(uuid string) int64 {
	s.Tb.Helper()
	ctx := context.Background()
	if err := s.Store.RollUp(ctx, T0.Add(time.Hour), 90*24*time.Hour); err != nil {
		s.Tb.Fatalf("RollUp: %v", err)
	}
	rs, err := s.Store.Rollups(ctx, s.GPUIDs(uuid)[0], models.Rollup5m, T0.Add(-48*time.Hour), T0.Add(time.Hour))
	if err != nil {
		s.Tb.Fatalf("Rollups: %v", err)
	}
	var n int64
	for _, r := range rs {
		n += r.N
	}
	return n
}

// WantAPIError checks an API error answer: its status, and a JSON body with a message and the
// field named.
func WantAPIError(t *testing.T, what string, w *httptest.ResponseRecorder, status int, field string) {
	t.Helper()
	if w.Code != status {
		t.Fatalf("%s = %d %s, want %d", what, w.Code, w.Body, status)
	}
	if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("%s Content-Type = %q, want application/json", what, ct)
	}
	var e api.Error
	if err := JSONStrict(w.Body.String(), &e); err != nil {
		t.Fatalf("%s body %q is not an API error: %v", what, w.Body, err)
	}
	if e.Error == "" || e.Field != field {
		t.Errorf("%s = %+v, want a message and field %q", what, e, field)
	}
}
