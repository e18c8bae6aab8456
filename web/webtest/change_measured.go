// A setting change's page, read once its measure, which runs in the background, is done.

package webtest

import (
	"net/http/httptest"
	"strings"
	"time"
)

// Measured GETs path (a change's page or its fragment), with header pairs, again until the
// answer no longer says that the change's measure runs in the background, for a minute at
// most, and returns the last answer.
func (s *Server) Measured(path string, hdr ...string) *httptest.ResponseRecorder {
	s.Tb.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		w := s.Get(path, hdr...)
		body := w.Body.String()
		if !strings.Contains(body, `data-testid="change-computing"`) && !strings.Contains(body, `data-testid="change-effect-computing"`) ||
			time.Now().After(deadline) {
			return w
		}
		time.Sleep(20 * time.Millisecond)
	}
}
