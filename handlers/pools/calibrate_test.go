package pools_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"kashi/web/webtest"
)

// postCalibration posts the calibration form with an uploaded trace.
func postCalibration(s webtest.PoolServer, fields map[string]string, trace string) *httptest.ResponseRecorder {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	if trace != "" {
		fw, _ := mw.CreateFormFile("trace", "trace.csv")
		fw.Write([]byte(trace))
	}
	mw.Close()
	r := httptest.NewRequest(http.MethodPost, "/calibrate", &body)
	r.Header.Set("Content-Type", mw.FormDataContentType())
	r.Header.Set("Authorization", "Bearer "+s.Token)
	w := httptest.NewRecorder()
	s.E.ServeHTTP(w, r)
	return w
}

// finishedRun reads the run's page until the run has finished (its progress bar is gone),
// however long the sweep takes on this machine, and returns the page.
func finishedRun(t *testing.T, s webtest.PoolServer, path string) (*goquery.Document, string) {
	t.Helper()
	for {
		w := s.Get(path)
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(w.Body.String()))
		if w.Code != http.StatusOK || err != nil {
			t.Fatalf("GET %s = %d, %v", path, w.Code, err)
		}
		if doc.Find(`[data-testid="calibrate-progress"]`).Length() == 0 {
			return doc, w.Body.String()
		}
		time.Sleep(20 * time.Millisecond) // between reads, not a bound: the run decides when
	}
}

// An admin replays a trace under candidate settings of a pool, sees cost against waiting,
// and proposes one as the pool's next configuration version.
func TestCalibrate(t *testing.T) {
	s := webtest.NewPoolServer(t)
	if w := s.Get("/calibrate"); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `value="a100"`) {
		t.Fatalf("GET /calibrate = %d, want the form offering pool a100", w.Code)
	}
	if w := postCalibration(s, map[string]string{"pool": "a100", "source": "upload", "sweep": "colour=red"}, webtest.CalibrateTrace); w.Code != http.StatusUnprocessableEntity {
		t.Errorf("bad sweep = %d, want 422", w.Code)
	}
	// A job_id given twice is refused, naming the lines and the id, in the page's language.
	dup := webtest.CalibrateTrace + "3,40,60,1,A100-80G\n"
	w := postCalibration(s, map[string]string{"pool": "a100", "source": "upload", "sweep": "scale_up_mem=0.8"}, dup)
	if want := "Line 7 of the trace repeats job_id &#34;3&#34; of line 4"; w.Code != http.StatusUnprocessableEntity || !strings.Contains(w.Body.String(), want) {
		t.Errorf("a repeated job_id = %d, want 422 saying %q:\n%s", w.Code, want, w.Body)
	}
	w = postCalibration(s, map[string]string{"pool": "a100", "source": "upload", "sweep": "scale_up_mem=0.8,0.9;max_nodes=2,6"}, webtest.CalibrateTrace)
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/calibrate?run=1" {
		t.Fatalf("POST /calibrate = %d %q, want 303 to the run", w.Code, w.Header().Get("Location"))
	}
	doc, page := finishedRun(t, s, "/calibrate/runs/1")
	if n := doc.Find(`[data-testid="calibrate-row"]`).Length(); n != 4 {
		t.Fatalf("result rows = %d, want 4 (2 × 2 settings):\n%s", n, page)
	}
	if doc.Find(`[data-testid="calibrate-chart"] circle`).Length() != 4 {
		t.Error("chart: want a point per setting")
	}
	// Row 3 is scale_up_mem=0.9 max_nodes=6.
	r := httptest.NewRequest(http.MethodPost, "/calibrate/propose", strings.NewReader("run=1&row=3"))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Authorization", "Bearer "+s.Token)
	pw := httptest.NewRecorder()
	s.E.ServeHTTP(pw, r)
	if pw.Code != http.StatusSeeOther || pw.Header().Get("Location") != "/pools/a100/edit" {
		t.Fatalf("propose = %d %q, want 303 to the pool's page", pw.Code, pw.Header().Get("Location"))
	}
	versions, _ := s.Store.PoolConfigVersions(context.Background(), "a100")
	if !strings.HasPrefix(versions[0].Note, "calibrate: scale_up_mem=0.9 max_nodes=6") {
		t.Errorf("latest version note = %q, want the calibrated setting", versions[0].Note)
	}
	pools, _ := s.Store.ConfiguredPools(context.Background())
	if c := pools[0].Config; c.MemoryHighPct != 90 || c.MaxNodes != 6 || c.Spec != "A100-80G" {
		t.Errorf("proposed configuration = %+v, want memory mark 90 and max 6, the rest kept", c)
	}
	if w := s.Get("/calibrate/history.csv?days=7"); w.Code != http.StatusOK || !strings.HasPrefix(w.Body.String(), "job_id,submit_ts,start_ts,end_ts,gpus,group,spec") {
		t.Errorf("history = %d %q, want a trace", w.Code, w.Body)
	}
	if w := s.Get("/calibrate/history.csv?days=900"); w.Code != http.StatusUnprocessableEntity {
		t.Errorf("history of 900 days = %d, want 422", w.Code)
	}
}

// TestCalibrateFromHistory replays this deployment's own history: the history trace carries
// each task's cards (a scan that left them 0 made every calibration from history fail with
// "the trace has no job to replay"), and a sweep over it fills the table.
func TestCalibrateFromHistory(t *testing.T) {
	s := webtest.NewPoolServer(t)
	s.Projects("vision")
	n := s.Register(webtest.Node("hist-1").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 4))
	const running, exit0 = `{"state":"running"}`, `{"state":"exited","exit_code":0}`
	for i, start := range []time.Time{webtest.T0.Add(-6 * time.Hour), webtest.T0.Add(-4 * time.Hour), webtest.T0.Add(-2 * time.Hour)} {
		s.SetNow(start)
		task := s.Create(webtest.Task("hist").GPUs(2).Ready(), start)
		s.Place(task, start, webtest.UUIDOf("hist-1", 2*(i%2)), webtest.UUIDOf("hist-1", 2*(i%2)+1))
		s.Report(n, task.ID, running)
		s.SetNow(start.Add(time.Hour))
		s.Report(n, task.ID, exit0)
	}
	s.SetNow(webtest.T0)
	w := s.Get("/calibrate/history.csv?days=7")
	lines := strings.Split(strings.TrimSpace(w.Body.String()), "\n")
	if w.Code != http.StatusOK || len(lines) != 4 {
		t.Fatalf("history = %d with %d lines, want the header and 3 tasks:\n%s", w.Code, len(lines), w.Body)
	}
	for _, line := range lines[1:] {
		if f := strings.Split(line, ","); len(f) < 5 || f[4] != "2" {
			t.Errorf("history row %q: gpus = %v, want 2", line, f)
		}
	}
	w = postCalibration(s, map[string]string{"pool": "a100", "source": "history", "days": "7", "sweep": "max_nodes=2,6"}, "")
	if w.Code != http.StatusSeeOther {
		t.Fatalf("POST /calibrate from history = %d %q, want 303 to the run", w.Code, w.Body)
	}
	// A day and more of the business clock later (the demo's clock runs fast) the
	// calibration is still kept: it is the process's memory, kept in real time.
	s.SetNow(webtest.T0.Add(48 * time.Hour))
	doc, page := finishedRun(t, s, strings.Replace(w.Header().Get("Location"), "/calibrate?run=", "/calibrate/runs/", 1))
	if n := doc.Find(`[data-testid="calibrate-row"]`).Length(); n != 2 {
		t.Fatalf("result rows = %d, want 2 (one per setting):\n%s", n, page)
	}
}
