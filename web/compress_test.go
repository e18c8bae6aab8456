package web_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"strings"
	"testing"

	"kashi/static"
	"kashi/web/webtest"
)

// Text answers travel gzipped to clients that accept it, pages, htmx fragments, JSON, CSV and
// the static files alike; XLSX downloads (already a zip) and small answers do not, /metrics is
// compressed once (by the Prometheus handler), and a client that does not ask gets plain text.
func TestCompressedAnswers(t *testing.T) {
	w := webtest.NewBillWorld(t)
	fin := webtest.Bearer(w.Tokens["finance"])
	bill := "/api/v1/bills/vision/" + webtest.BillMonth
	cases := map[string]struct {
		path string
		hdr  []string
		gzip bool
		head string
		vary bool // Vary names Accept-Encoding
	}{
		"page":          {"/bills/vision/" + webtest.BillMonth, fin, true, "<!doctype html>", true},
		"htmx fragment": {"/", []string{"HX-Request", "true"}, true, `<div id="board-grid"`, true},
		"board":         {"/", nil, true, "<!doctype html>", true},
		"json":          {bill, fin, true, "{", true},
		"csv":           {bill + "?format=csv", fin, true, "\ufeff", true},
		"static script": {static.Path("htmx.min.js"), nil, true, "var htmx", true},
		"bill xlsx":     {bill + "?format=xlsx", fin, false, "PK", false},
		"report xlsx":   {"/reports.xlsx", fin, false, "PK", false},
		"metrics":       {"/metrics", nil, true, "# HELP", false},
		"small":         {"/healthz", nil, false, "", true},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			r := w.Get(tc.path, append([]string{"Accept-Encoding", "gzip"}, tc.hdr...)...)
			if r.Code != 200 {
				t.Fatalf("GET %s = %d %s", tc.path, r.Code, r.Body)
			}
			body := r.Body.Bytes()
			enc := r.Header().Get("Content-Encoding")
			if enc == "gzip" {
				zr, err := gzip.NewReader(bytes.NewReader(body))
				if err != nil {
					t.Fatalf("GET %s: Content-Encoding gzip, but %v", tc.path, err)
				}
				if body, err = io.ReadAll(zr); err != nil {
					t.Fatalf("GET %s: %v", tc.path, err)
				}
			}
			if (enc == "gzip") != tc.gzip {
				t.Errorf("GET %s: Content-Encoding %q, want gzip %v", tc.path, enc, tc.gzip)
			}
			if !strings.HasPrefix(string(body), tc.head) {
				t.Errorf("GET %s reads %q once decoded, want it to begin %q", tc.path, webtest.Around(string(body), ""), tc.head)
			}
			if vary := strings.Join(r.Header().Values("Vary"), ", "); tc.vary && !strings.Contains(vary, "Accept-Encoding") {
				t.Errorf("GET %s: Vary %q, want Accept-Encoding among them", tc.path, vary)
			}
		})
	}
	if r := w.Get("/bills/vision/"+webtest.BillMonth, fin...); r.Header().Get("Content-Encoding") != "" ||
		!strings.HasPrefix(r.Body.String(), "<!doctype html>") {
		t.Errorf("without Accept-Encoding: Content-Encoding %q, body %q", r.Header().Get("Content-Encoding"), r.Body.String()[:20])
	}
}
