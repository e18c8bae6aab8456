package proof

import (
	"context"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestAgree runs `kashi serve --demo` with faults (the cloud fails calls, loses replies and
// fails boots; running machines are lost) for -agree-days simulated days, on SQLite and, when
// KASHI_TEST_PG_DSN names a server, on Postgres. Every -agree-every of simulated time it
// changes something people change (a project's tags, a price), holds the demo's clock
// (SIGUSR1), reads every place a figure appears — as the people who read them: admin, finance,
// a lead — until two readings in a row are the same, checks that they tell the same story
// (docs/invariants.md lists the rules), and lets the clock go (SIGUSR2). It issues the
// demo's past month first, and every later reading checks the issued bills did not change;
// and it calibrates every pool from the deployment's own history (/calibrate), which must
// fill the sweep's table.
func TestAgree(t *testing.T) {
	if *agreeDays == 0 {
		t.Skip("asked for with -agree-days N")
	}
	// The two databases' demos run side by side, as TestCrash's do: each holds its own clock
	// while it is read, so neither reading depends on how fast the other runs.
	t.Run("sqlite", func(t *testing.T) { t.Parallel(); agreeProof(t, sqliteDB(t)) })
	t.Run("postgres", func(t *testing.T) { t.Parallel(); agreeProof(t, postgresDB(t)) })
}

// The agreement proof's settings.
const (
	// agreeSpeed is the demo clock's speed: a simulated day in 48 s.
	agreeSpeed = 1800
	// agreeFaults is --demo-faults: one cloud call in ten fails, one boot in ten fails, and a
	// machine is lost about every ten simulated hours.
	agreeFaults = 0.1
	// agreeWeekly is --weekly-report: every half hour, so that the week before the demo's
	// start is sent once its past is filled (each week is sent once).
	agreeWeekly = "*/30 * * * *"
)

func agreeProof(t *testing.T, db database) {
	ctx := context.Background()
	addr := freeAddr(t)
	logPath := filepath.Join(t.TempDir(), "serve.log")
	defer keepLog(t, logPath)
	srv := startArgs(t, addr, logPath, "serve", "--demo", "--db", db.DSN, "--addr", addr, "--join-token", joinToken,
		"--demo-speed", fmt.Sprint(agreeSpeed), "--demo-faults", fmt.Sprint(agreeFaults), "--log-level", "info", "--lang", "en",
		"--weekly-report", agreeWeekly)
	defer srv.stop(t)
	if err := srv.waitHealthy(2 * time.Minute); err != nil {
		t.Fatal(err)
	}
	w, err := newWitness(ctx, "http://"+addr)
	if err != nil {
		t.Fatal(err)
	}
	// The demo's past month is billed once it is filled; issue it, and remember how it reads.
	deadline := time.Now().Add(6 * time.Minute)
	for !logHas(logPath, `msg="demo past filled"`) {
		if time.Now().After(deadline) {
			t.Fatal("the demo's past was not filled within 6 minutes")
		}
		time.Sleep(200 * time.Millisecond)
	}
	issued, err := w.issuePastMonth(ctx)
	if err != nil {
		t.Fatalf("issue the past month: %v", err)
	}
	v := violations{}
	// Thresholds are set from the team's own data: /calibrate on this deployment's history.
	rows, err := w.calibrateFromHistory(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for pool, n := range rows {
		if n == 0 {
			v.add("calibration from history", "pool %s: the sweep's table is empty", pool)
		}
	}
	t.Logf("calibrated from the deployment's history: sweep table rows by pool %v", rows)
	if err := w.bookAndAsk(ctx, *agreeDays); err != nil {
		t.Fatal(err)
	}

	every := time.Duration(float64(*agreeEvery) / agreeSpeed)
	readings := int(*agreeDays * float64(24*time.Hour) / float64(*agreeEvery))
	for i := range max(readings, 1) {
		time.Sleep(every)
		if err := w.change(ctx, i); err != nil {
			t.Fatalf("reading %d: %v", i+1, err)
		}
		srv.cmd.Process.Signal(syscall.SIGUSR1)
		in, tries, err := w.steadyReading(ctx, issued.month)
		srv.cmd.Process.Signal(syscall.SIGUSR2)
		if err != nil {
			t.Fatalf("reading %d: %v", i+1, err)
		}
		before := len(v)
		in.agree(v)
		issued.unchanged(ctx, w, v)
		t.Logf("reading %d at %s (%d tries): %d cards, %d tasks holding cards, %d waiting, %d bills, %d places of quota in use, "+
			"%d booked cards, %d dry runs, %d weeks, %d weekly messages, %d services; %d disagreements",
			i+1, in.at.Format(time.DateTime), tries, len(in.gpus), len(in.holding), len(in.queue.Tasks), len(in.bills),
			len(in.quotaReading.seen), in.quotaReading.boardMarks, len(in.quotaReading.dry), len(in.reports.weeks),
			len(in.reports.sent), len(in.reports.services), len(v)-before)
	}
	if len(v) > 0 {
		t.Errorf("the figures disagree:\n%s", v)
	}
}
