package web_test

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"kashi/handlers"
	"kashi/models"
	"kashi/scheduler"
	"kashi/web"
	"kashi/web/webtest"
)

// demoDB is a SQLite database `kashi serve --demo --db` wrote, for BenchmarkDemoPages.
var demoDB = flag.String("demo-db", "", "a SQLite database the demo wrote (stopped, or a `sqlite3 .backup` copy), for BenchmarkDemoPages")

// BenchmarkDemoPages measures the server time of every main page on the demo's data: the
// router over a copy of -demo-db, the clock at the database's last stamp, the queue as one
// scheduler tick leaves it (as the server keeps it), each page read by the role that reads it
// (admin, finance for bills and reports) through an API token; KB is the page's HTML, and
// cpu-ms/op the process's CPU time a page (its parts on both cores together; on a machine
// other work shares, the wall time of ns/op varies with it, the CPU time much less). Without -demo-db it is skipped: run the demo for a simulated day or two first
// (BENCHMARKS.md, Pages).
func BenchmarkDemoPages(b *testing.B) {
	if *demoDB == "" {
		b.Skip("no -demo-db")
	}
	ctx := context.Background()
	dir := b.TempDir()
	for _, suffix := range []string{"", "-wal"} {
		if err := copyFile(*demoDB+suffix, filepath.Join(dir, "demo.db"+suffix)); err != nil && !(suffix != "" && os.IsNotExist(err)) {
			b.Fatal(err)
		}
	}
	s, err := models.Open(ctx, filepath.Join(dir, "demo.db"), models.Options{BoardLag: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	now, err := s.LastStamp(ctx)
	if err != nil {
		b.Fatal(err)
	}
	clock := func() time.Time { return now }
	loc, _ := time.LoadLocation("Asia/Shanghai")
	loop := scheduler.NewLoop(s, scheduler.LoopConfig{Policy: scheduler.DefaultPolicy(loc), Now: clock,
		NodeStaleAfter: 24 * time.Hour, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if _, err := loop.RunOnce(ctx, now); err != nil {
		b.Fatal(err)
	}
	h := web.NewAreas(s, &webtest.FakeSched{Loop: loop}, handlers.Config{Sessions: models.SessionLimits{Idle: time.Hour, Absolute: 24 * time.Hour},
		Location: loc, TaskLimits: models.DefaultTaskLimits, StaleAfter: 24 * time.Hour, Demo: true}, clock)
	e := web.New(h, false, slog.New(slog.NewTextHandler(io.Discard, nil)))
	tokens := map[string]string{}
	for _, name := range []string{"admin", "finance"} {
		u, err := s.UserByName(ctx, name)
		if err != nil {
			b.Fatal(err)
		}
		if tokens[name], _, err = s.CreateAPIToken(ctx, u.ID, "bench", models.ScopeRead, now); err != nil {
			b.Fatal(err)
		}
	}
	this := now.In(loc).Format("2006-01")
	last := now.In(loc).AddDate(0, 0, -now.In(loc).Day()).Format("2006-01")
	pages := []struct{ name, who, path string }{
		{"board", "admin", "/"}, {"grid", "admin", "/?view=grid"}, {"queue", "admin", "/queue"}, {"tasks", "admin", "/tasks"},
		{"projects", "admin", "/projects"}, {"approvals", "admin", "/approvals"}, {"pools", "admin", "/pools"},
		{"models", "admin", "/models"}, {"alerts", "admin", "/alerts"}, {"audit", "admin", "/audit"},
		{"notifications", "admin", "/notifications"}, {"prices", "admin", "/prices"}, {"people", "admin", "/people"},
		{"tokens", "admin", "/tokens"}, {"bills", "finance", "/bills"}, {"bills-this-month", "finance", "/bills?month=" + this},
		{"bill-issued", "finance", "/bills/vision/" + last}, {"bill-open", "finance", "/bills/vision/" + this},
		{"reports", "finance", "/reports"},
	}
	for _, p := range pages {
		b.Run(p.name, func(b *testing.B) {
			size := 0
			cpu0 := processCPU(b)
			for b.Loop() {
				r := httptest.NewRequest(http.MethodGet, p.path, nil)
				r.Header.Set("Authorization", "Bearer "+tokens[p.who])
				w := httptest.NewRecorder()
				e.ServeHTTP(w, r)
				if w.Code != http.StatusOK {
					b.Fatalf("GET %s = %d %s", p.path, w.Code, w.Body)
				}
				size = w.Body.Len()
			}
			b.ReportMetric(float64(size)/1000, "KB")
			b.ReportMetric(float64(processCPU(b)-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}

// copyFile copies the file from to the path to.
func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("copy %s: %w", from, err)
	}
	return out.Close()
}

// processCPU is the CPU time this process has used, user and system, in nanoseconds.
func processCPU(b *testing.B) int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
