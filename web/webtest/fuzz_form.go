// Forms posted by the fuzz targets.

package webtest

import (
	"net/http"
	"net/http/httptest"
)

// PostForm sends body as a urlencoded form with the bearer token tok, as htmx does when htmx.
func (s *Server) PostForm(path, tok, body string, htmx bool) *httptest.ResponseRecorder {
	hdr := map[string]string{"Authorization": "Bearer " + tok, "Content-Type": "application/x-www-form-urlencoded"}
	if htmx {
		hdr["HX-Request"] = "true"
	}
	return s.Do(Req{Method: http.MethodPost, Path: path, Body: body, Hdr: hdr})
}
