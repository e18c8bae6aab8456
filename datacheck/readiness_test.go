package datacheck_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kashi/datacheck"
	"kashi/models"
	"kashi/models/modelstest"
)

func TestReadinessChecks(t *testing.T) {
	ctx := context.Background()
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	s := modelstest.SQLite(t, models.Options{})
	_, err := s.RegisterNode(ctx, models.NodeRegistration{Hostname: "n1", Pool: "p", GPUs: []models.GPUInfo{
		{UUID: "g0", Name: "NVIDIA A100-SXM4-80GB", MemoryTotalMiB: 81920}}}, "h", t0)
	if err != nil {
		t.Fatal(err)
	}
	s.EnsureProject(ctx, "vision", t0)
	dir := t.TempDir()
	s.SetDataRoots([]string{dir})
	status := http.StatusServiceUnavailable
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(status) }))
	defer srv.Close()
	submit := func(name string, check models.DataCheck) int64 {
		tk, _, err := s.CreateTask(ctx, models.NewTask{Project: "vision", Name: name, Owner: "a", GPUs: 1, Queue: "long",
			Priority: "normal", Command: []string{"x"}, DataCheck: check}, models.DefaultTaskLimits, t0)
		if err != nil {
			t.Fatal(err)
		}
		return tk.ID
	}
	byPath := submit("path", models.DataCheck{Path: filepath.Join(dir, "shard-0.done")})
	byURL := submit("url", models.DataCheck{URL: srv.URL + "/ready"})
	manual := submit("manual", models.DataCheck{})

	host := strings.TrimPrefix(srv.URL, "http://")
	host = host[:strings.LastIndex(host, ":")]
	r := datacheck.NewReadiness(s, func() time.Time { return t0 }, slog.Default()).
		WithPolicy(datacheck.Policy{Roots: []string{dir}, AllowHosts: []string{host}})
	if n, err := r.CheckOnce(ctx); err != nil || n != 0 {
		t.Fatalf("CheckOnce before the data = %d, %v; want 0", n, err)
	}
	// Both checks answered (not there yet, 503): their tasks say when; the manual one has none.
	for id, want := range map[int64]bool{byPath: true, byURL: true, manual: false} {
		if row, _ := s.TaskByID(ctx, id); (row.DataCheckedAt != nil && row.DataCheckedAt.Equal(t0)) != want {
			t.Errorf("task %s checked at %v, want answered at t0: %v", row.Name, row.DataCheckedAt, want)
		}
	}
	os.WriteFile(filepath.Join(dir, "shard-0.done"), nil, 0o644)
	status = http.StatusOK
	if n, err := r.CheckOnce(ctx); err != nil || n != 2 {
		t.Fatalf("CheckOnce after the data = %d, %v; want 2", n, err)
	}
	for id, want := range map[int64]string{byPath: models.TaskQueued, byURL: models.TaskQueued, manual: models.TaskWaitingData} {
		if row, _ := s.TaskByID(ctx, id); row.State != want {
			t.Errorf("task %s is %s, want %s", row.Name, row.State, want)
		}
	}
}
