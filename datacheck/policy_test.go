package datacheck_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"kashi/datacheck"
	"kashi/models"
)

// fakeStore holds tasks waiting for data, reports each one marked ready on a channel, and
// keeps those whose checks answered without finding the data.
type fakeStore struct {
	mu       sync.Mutex
	tasks    []models.TaskRow
	ready    chan int64
	answered []int64
}

func (f *fakeStore) ActiveTasks(context.Context) ([]models.TaskRow, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tasks, nil
}

func (f *fakeStore) MarkTaskReady(_ context.Context, id int64, _ string, _ time.Time) error {
	f.ready <- id
	return nil
}

func (f *fakeStore) MarkTaskReadyIn(ctx context.Context, id int64, _, reason string, now time.Time) error {
	return f.MarkTaskReady(ctx, id, reason, now)
}

func (f *fakeStore) MarkDataChecked(_ context.Context, ids []int64, _ time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answered = append(f.answered, ids...)
	return nil
}

func (f *fakeStore) add(c models.DataCheck) int64 {
	b, _ := json.Marshal(c)
	id := int64(len(f.tasks) + 1)
	f.tasks = append(f.tasks, models.TaskRow{Task: models.Task{ID: id, State: models.TaskWaitingData, DataCheck: string(b)}})
	return id
}

func checker(f *fakeStore, p datacheck.Policy) *datacheck.Readiness {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	return datacheck.NewReadiness(f, time.Now, log).WithPolicy(p)
}

// readyOf runs one round and returns the tasks marked ready.
func readyOf(t *testing.T, f *fakeStore, p datacheck.Policy) []int64 {
	t.Helper()
	f.ready = make(chan int64, len(f.tasks))
	if _, err := checker(f, p).CheckOnce(context.Background()); err != nil {
		t.Fatalf("CheckOnce: %v", err)
	}
	close(f.ready)
	var got []int64
	for id := range f.ready {
		got = append(got, id)
	}
	return got
}

func TestPathChecksStayInDataRoots(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "ok"), nil, 0o644)
	os.Symlink("/etc/hostname", filepath.Join(root, "escape"))
	f := &fakeStore{}
	inRoot := f.add(models.DataCheck{Path: filepath.Join(root, "ok")})
	f.add(models.DataCheck{Path: "/etc/hostname"})
	f.add(models.DataCheck{Path: filepath.Join(root, "..", filepath.Base(root), "..", "..", "etc", "hostname")})
	f.add(models.DataCheck{Path: filepath.Join(root, "escape")})
	if got := readyOf(t, f, datacheck.Policy{}); len(got) != 0 {
		t.Errorf("ready without data roots = %v, want none (path checks off)", got)
	}
	if diff := cmp.Diff([]int64{inRoot}, readyOf(t, f, datacheck.Policy{Roots: []string{root}})); diff != "" {
		t.Errorf("ready with root %s (-want +got):\n%s", root, diff)
	}
	for path, ok := range map[string]bool{root + "/a/b": true, root: true, root + "/../x": false, "/etc/shadow": false, "rel/x": false} {
		if got := models.InDataRoots([]string{root}, filepath.Clean(path)); got != ok {
			t.Errorf("InDataRoots(%q) = %v, want %v", path, got, ok)
		}
	}
}

func TestURLChecksRefuseInternalAddresses(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]
	f := &fakeStore{}
	loop := f.add(models.DataCheck{URL: srv.URL + "/ready"})
	byName := f.add(models.DataCheck{URL: "http://localhost" + port + "/ready"})
	f.add(models.DataCheck{URL: "http://169.254.169.254/latest/meta-data/"})
	f.add(models.DataCheck{URL: "http://[::1]" + port + "/"})
	f.add(models.DataCheck{URL: "http://10.0.0.1/"})
	if got := readyOf(t, f, datacheck.Policy{}); len(got) != 0 {
		t.Errorf("ready with no allowed hosts = %v, want none", got)
	}
	got := readyOf(t, f, datacheck.Policy{AllowHosts: []string{"127.0.0.1", "localhost"}})
	if diff := cmp.Diff([]int64{loop, byName}, got, cmpSorted); diff != "" {
		t.Errorf("ready with 127.0.0.1 and localhost allowed (-want +got):\n%s", diff)
	}
}

// TestSlowURLDoesNotDelayOthers: while one URL hangs, the other tasks' checks pass and are
// marked ready.
func TestSlowURLDoesNotDelayOthers(t *testing.T) {
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {}))
	defer fast.Close()
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "done"), nil, 0o644)
	f := &fakeStore{ready: make(chan int64, 10)}
	f.add(models.DataCheck{URL: slow.URL})
	want := map[int64]bool{f.add(models.DataCheck{URL: fast.URL}): true, f.add(models.DataCheck{Path: filepath.Join(root, "done")}): true}
	r := checker(f, datacheck.Policy{Roots: []string{root}, AllowHosts: []string{"127.0.0.1"}})
	done := make(chan struct{})
	go func() { r.CheckOnce(context.Background()); close(done) }()
	for range want {
		if id := <-f.ready; !want[id] {
			t.Errorf("task %d marked ready, want one of %v", id, want)
		}
	}
	close(release) // only now does the slow URL answer
	<-done
}

var cmpSorted = cmpopts.SortSlices(func(a, b int64) bool { return a < b })

// TestChecksThatAnswer: a round marks checked the tasks whose checks answered without finding
// their data — a path not there yet under a root, a URL answering 404 — and not those whose
// checks could not tell: a path outside the roots, a link out of them, a URL refused or not
// answering. A check that found its data makes its task ready instead.
func TestChecksThatAnswer(t *testing.T) {
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "ok"), nil, 0o644)
	os.Symlink("/etc/hostname", filepath.Join(root, "escape"))
	missing := httptest.NewServer(http.NotFoundHandler())
	defer missing.Close()
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	f := &fakeStore{}
	notYet := f.add(models.DataCheck{Path: filepath.Join(root, "not-yet")})
	found := f.add(models.DataCheck{Path: filepath.Join(root, "ok")})
	f.add(models.DataCheck{Path: "/etc/hostname"})
	f.add(models.DataCheck{Path: filepath.Join(root, "escape")})
	answered404 := f.add(models.DataCheck{URL: missing.URL + "/ready"})
	f.add(models.DataCheck{URL: gone.URL + "/ready"})
	f.add(models.DataCheck{URL: "http://10.0.0.1/ready"})
	hosts := []string{"127.0.0.1"}
	if diff := cmp.Diff([]int64{found}, readyOf(t, f, datacheck.Policy{Roots: []string{root}, AllowHosts: hosts})); diff != "" {
		t.Errorf("ready (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int64{notYet, answered404}, f.answered, cmpSorted); diff != "" {
		t.Errorf("answered (-want +got):\n%s", diff)
	}
}
