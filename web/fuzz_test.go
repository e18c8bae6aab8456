package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"kashi/api"
	"kashi/models"
	"kashi/models/modelstest"
	"kashi/web/webtest"
)

// apiErrorStatuses are the answers bad input may get.
var apiErrorStatuses = map[int]bool{400: true, 401: true, 403: true, 404: true, 409: true, 413: true, 415: true, 422: true}

// checkAPIError fails unless w is a 4xx the API documents, with a JSON error body.
func checkAPIError(t *testing.T, what string, code int, body string) {
	t.Helper()
	if !apiErrorStatuses[code] {
		t.Fatalf("%s = %d %s, want 2xx or a documented 4xx", what, code, body)
	}
	var e api.Error
	if err := webtest.JSONStrict(body, &e); err != nil || e.Error == "" {
		t.Fatalf("%s = %d with body %q, want a JSON error (%v)", what, code, body, err)
	}
}

// fuzzServer is the router over Postgres when KASHI_TEST_PG_DSN is set (it refuses text that
// SQLite stores, so it finds more), else over SQLite.
func fuzzServer(f *testing.F) *webtest.Server {
	if os.Getenv(modelstest.PGEnv) != "" {
		return webtest.NewServerOn(f, modelstest.Postgres(f, models.Options{}), webtest.TestCfg())
	}
	return webtest.NewServer(f)
}

func FuzzAgentSamples(f *testing.F) {
	srv := fuzzServer(f)
	n1, _ := webtest.AgentFleet(srv)
	seeds := []string{
		webtest.MustJSON(f, api.SamplesRequest{Samples: []api.Sample{webtest.Sample("GPU-n1-0", webtest.T0.Add(-time.Minute), 50, 1000)}}),
		webtest.MustJSON(f, api.SamplesRequest{Samples: []api.Sample{
			webtest.Sample("GPU-n1-0", webtest.T0.Add(-2*time.Minute), 0, 0), webtest.Sample("GPU-n1-1", webtest.T0.Add(-2*time.Minute), 100, webtest.A100MiB),
			webtest.Sample("GPU-n1-0", webtest.T0.Add(-2*time.Minute), 0, 0)}}),
		`{"samples":[{"uuid":"GPU-n1-2","ts":"2026-03-02T08:59:00+08:00","memory_used_mib":0,"util_pct":0,"processes":[{"pid":1,"used_memory_mib":10}]}]}`,
		`{"samples":[{"uuid":"GPU-n2-0","ts":"2026-03-02T08:59:00Z"}]}`,
		`{"samples":[{"uuid":"GPU-n1-0","ts":"2026-03-02T09:05:01Z"}]}`,
		`{"samples":[{"uuid":"GPU-n1-0","ts":"9999-12-31T23:59:59Z","util_pct":1}]}`,
		`{"samples":[{"uuid":"GPU-n1-0","ts":"0001-01-01T00:00:00Z"}]}`,
		`{"samples":[{"uuid":"GPU-n1-0","ts":"2026-03-02T08:59:00Z","memory_used_mib":-9223372036854775808}]}`,
		`{"samples":[{"uuid":"GPU-n1-0","ts":"2026-03-02T08:59:00Z","memory_used_mib":"1"}]}`,
		`{"samples":[{"uuid":"GPU-n1-0","ts":"2026-03-02T08:59:00Z","util_pct":101}]}`,
		`{"samples":[{"uuid":"GPU-\xff","ts":"2026-03-02T08:59:00Z"}]}`,
		`{"samples":[{"uuid":"GPU-\ud800","ts":"2026-03-02T08:59:00Z"}]}`,
		`{"samples":[{"uuid":"GPU-n1-0\u0000","ts":"2026-03-02T08:59:00Z"}]}`,
		`{"samples":[],"x":1}`,
		`{"samples":null}`,
		`{"samples":[null]}`,
		`[]`, `null`, `{`, ``, `{"samples":[{}]} {}`,
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		s := srv.With(t)
		before := gpuRows(t, s)
		w := s.Do(webtest.Req{Method: http.MethodPost, Path: api.PathSamples, Body: string(body),
			Hdr: map[string]string{"Authorization": "Bearer " + n1.Token, "Content-Type": "application/json"}})
		after := gpuRows(t, s)
		if w.Code != http.StatusOK {
			checkAPIError(t, "POST "+api.PathSamples, w.Code, w.Body.String())
			if diff := cmp.Diff(before, after); diff != "" {
				t.Fatalf("POST %s = %d changed the GPUs (-before +after):\n%s", api.PathSamples, w.Code, diff)
			}
			return
		}
		var sent api.SamplesRequest
		if err := json.Unmarshal(body, &sent); err != nil {
			t.Fatalf("POST %s = 200 for a body that does not decode: %v", api.PathSamples, err)
		}
		got := webtest.Decode[api.SamplesResponse](t, w)
		if got.Accepted < 0 || got.Duplicates < 0 || got.Accepted+got.Duplicates != len(sent.Samples) {
			t.Fatalf("POST %s = %+v for %d samples", api.PathSamples, got, len(sent.Samples))
		}
		for _, g := range after {
			if g.NodeID != n1.ID {
				if diff := cmp.Diff(before[g.UUID], g); diff != "" {
					t.Fatalf("a batch of n1 changed %s of another node (-before +after):\n%s", g.UUID, diff)
				}
				continue
			}
			checkGPU(t, g)
		}
	})
}

// gpuRows is every GPU's current state by UUID.
func gpuRows(t *testing.T, s *webtest.Server) map[string]models.BoardGPU {
	t.Helper()
	rows, err := s.Store.BoardGPUs(context.Background(), models.BoardFilter{})
	if err != nil {
		t.Fatalf("BoardGPUs: %v", err)
	}
	out := make(map[string]models.BoardGPU, len(rows))
	for _, r := range rows {
		out[r.UUID] = r
	}
	return out
}

// checkGPU fails on a GPU state no valid sample can leave.
func checkGPU(t *testing.T, g models.BoardGPU) {
	t.Helper()
	switch {
	case g.UtilPct < 0 || g.UtilPct > 100:
		t.Fatalf("GPU %s util %d", g.UUID, g.UtilPct)
	case g.MemoryUsedMiB < 0 || g.MemoryUsedMiB > g.MemoryTotalMiB:
		t.Fatalf("GPU %s memory %d of %d", g.UUID, g.MemoryUsedMiB, g.MemoryTotalMiB)
	case g.SampledAt != nil && g.SampledAt.After(webtest.T0.Add(models.MaxFutureSkew)):
		t.Fatalf("GPU %s sampled at %v, after now + skew", g.UUID, g.SampledAt)
	case g.IdleSince != nil && (g.SampledAt == nil || g.IdleSince.After(*g.SampledAt)):
		t.Fatalf("GPU %s idle since %v, sampled %v", g.UUID, g.IdleSince, g.SampledAt)
	case g.SaturatedSince != nil && (g.SampledAt == nil || g.SaturatedSince.After(*g.SampledAt)):
		t.Fatalf("GPU %s saturated since %v, sampled %v", g.UUID, g.SaturatedSince, g.SampledAt)
	}
}

// createdTask is a task as POST /api/v1/tasks answers it.
type createdTask struct {
	ID          int64             `json:"id"`
	Project     string            `json:"project"`
	Name        string            `json:"name"`
	Owner       string            `json:"owner"`
	GPUs        int               `json:"gpus"`
	Spec        string            `json:"spec"`
	Queue       string            `json:"queue"`
	Priority    string            `json:"priority"`
	MaxRuntimeS int64             `json:"max_runtime_s"`
	Command     []string          `json:"command"`
	Env         map[string]string `json:"env"`
	State       string            `json:"state"`
}

func FuzzTaskCreate(f *testing.F) {
	srv := fuzzServer(f)
	webtest.TaskFleet(srv)
	seeds := []struct{ body, key string }{
		{webtest.TaskBody(nil), ""},
		{webtest.TaskBody(nil), "key-1"},
		{webtest.TaskBody(map[string]string{"gpus": "8", "spec": `"A100-80G"`, "queue": `"short"`, "priority": `"urgent"`, "max_runtime_s": "7200"}), ""},
		{webtest.TaskBody(map[string]string{"env": `{"PATH":"/usr/bin","_X1":""}`, "workdir": `"/w"`, "data_check": `{"url":"http://h/"}`}), ""},
		{webtest.TaskBody(map[string]string{"gpus": "0"}), ""},
		{webtest.TaskBody(map[string]string{"gpus": "-9223372036854775808"}), ""},
		{webtest.TaskBody(map[string]string{"max_runtime_s": "9223372036854775807"}), ""},
		{webtest.TaskBody(map[string]string{"max_runtime_s": "-9223372036854775808"}), ""},
		{webtest.TaskBody(map[string]string{"est_gpu_hours": "1e308"}), ""},
		{webtest.TaskBody(map[string]string{"name": "\"\xff\""}), ""},
		{webtest.TaskBody(map[string]string{"name": `"\udfff"`}), ""},
		{webtest.TaskBody(map[string]string{"name": `"a\u0000"`, "workdir": `"/\u0000"`}), ""},
		{webtest.TaskBody(map[string]string{"env": `{"A":"\u0000"}`}), "k\x00"},
		{webtest.TaskBody(map[string]string{"command": `"ls"`}), ""},
		{webtest.TaskBody(map[string]string{"data_check": `{"path":"/a","url":"http://b/"}`}), ""},
		{webtest.TaskBody(map[string]string{"spec": `"H800-80G"`, "gpus": "2"}), "\xff"},
		{`{"gpus":1}`, ""}, {`[]`, ""}, {`null`, ""}, {``, ""}, {`{"project":"vision"}{}`, ""},
	}
	for _, s := range seeds {
		f.Add([]byte(s.body), s.key)
	}
	f.Fuzz(func(t *testing.T, body []byte, key string) {
		s := srv.With(t)
		hdr := map[string]string{"Content-Type": "application/json"}
		if key != "" {
			if strings.ContainsAny(key, "\r\n") {
				return // not a header value a client can send
			}
			hdr["Idempotency-Key"] = key
		}
		last := newestTask(t, s)
		w := s.Do(webtest.Req{Method: http.MethodPost, Path: "/api/v1/tasks", Body: string(body), Hdr: hdr})
		switch w.Code {
		case http.StatusCreated, http.StatusOK:
		default:
			checkAPIError(t, "POST /api/v1/tasks", w.Code, w.Body.String())
			if got := newestTask(t, s); got != last {
				t.Fatalf("POST /api/v1/tasks = %d stored task %d", w.Code, got)
			}
			return
		}
		got := webtest.Decode[createdTask](t, w)
		if w.Code == http.StatusOK && key == "" {
			t.Fatalf("POST /api/v1/tasks = 200 without an Idempotency-Key")
		}
		if w.Code == http.StatusCreated && got.ID <= last {
			t.Fatalf("POST /api/v1/tasks = 201 with id %d, newest before was %d", got.ID, last)
		}
		switch {
		case got.GPUs < 1 || got.GPUs > 8:
			t.Fatalf("POST /api/v1/tasks = %d with gpus %d", w.Code, got.GPUs)
		case got.Spec == "H800-80G" && got.GPUs > 2:
			t.Fatalf("POST /api/v1/tasks = %d with %d H800 GPUs, the pool has 2", w.Code, got.GPUs)
		case len(got.Command) == 0 || got.Command[0] == "":
			t.Fatalf("POST /api/v1/tasks = %d with command %q", w.Code, got.Command)
		case got.Queue != "short" && got.Queue != "long":
			t.Fatalf("POST /api/v1/tasks = %d with queue %q", w.Code, got.Queue)
		case got.MaxRuntimeS < 1 || (got.Queue == "short" && got.MaxRuntimeS > 7200) || got.MaxRuntimeS > 14*24*3600:
			t.Fatalf("POST /api/v1/tasks = %d with max runtime %d in %s", w.Code, got.MaxRuntimeS, got.Queue)
		case got.State != "queued" && got.State != "waiting-data":
			t.Fatalf("POST /api/v1/tasks = %d in state %q", w.Code, got.State)
		case got.Project != "vision":
			t.Fatalf("POST /api/v1/tasks = %d in project %q", w.Code, got.Project)
		}
		for _, v := range append([]string{got.Name, got.Owner}, got.Command...) {
			if !utf8.ValidString(v) || strings.ContainsRune(v, utf8.RuneError) && !strings.Contains(string(body), "\uFFFD") && !strings.Contains(strings.ToLower(string(body)), `\ufffd`) {
				t.Fatalf("POST /api/v1/tasks = %d stored text %q the body did not hold", w.Code, v)
			}
		}
		row, err := s.Store.TaskByID(context.Background(), got.ID)
		if err != nil {
			t.Fatalf("TaskByID(%d) after %d: %v", got.ID, w.Code, err)
		}
		if row.GPUs != got.GPUs || row.Name != got.Name || row.State != got.State {
			t.Fatalf("stored task %+v differs from the answer %+v", row.Task, got)
		}
	})
}

// newestTask is the id of the newest task, 0 when there is none.
func newestTask(t *testing.T, s *webtest.Server) int64 {
	t.Helper()
	ts, err := s.Store.Tasks(context.Background(), models.TaskFilter{Limit: 1})
	if err != nil {
		t.Fatalf("Tasks: %v", err)
	}
	if len(ts) == 0 {
		return 0
	}
	return ts[0].ID
}
