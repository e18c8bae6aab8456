package main

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"kashi/models"
)

func TestParseServe(t *testing.T) {
	env := map[string]string{"KASHI_ADDR": "0.0.0.0:9000", "KASHI_IDLE_AFTER": "45m"}
	cfg, err := parseServe([]string{"--demo-speed", "120"}, func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatalf("parseServe = %v", err)
	}
	if cfg.Addr != "0.0.0.0:9000" || cfg.IdleAfter != 45*time.Minute || cfg.DemoSpeed != 120 || cfg.DB != "kashi.db" || cfg.dbSet {
		t.Errorf("parseServe = %+v", cfg)
	}
	if cfg, _ := parseServe([]string{"--db", "x.db"}, func(string) string { return "" }, io.Discard); !cfg.dbSet {
		t.Error("--db given: dbSet = false, want true")
	}
	if cfg.HistoryRetention != 90*24*time.Hour {
		t.Errorf("the history is kept %s by default, want 90 days", cfg.HistoryRetention)
	}
	if cfg.weekly == nil || cfg.WeeklyReport != "0 9 * * 1" {
		t.Errorf("the weekly report by default = %q, want Mondays at 09:00", cfg.WeeklyReport)
	}
	off, err := parseServe(nil, func(k string) string { return map[string]string{"KASHI_WEEKLY_REPORT": "off"}[k] }, io.Discard)
	if err != nil || off.weekly != nil {
		t.Errorf("KASHI_WEEKLY_REPORT=off: %v, schedule %v; want none", err, off.weekly)
	}
}

func TestRunRejectsBadInput(t *testing.T) {
	tests := map[string]struct {
		args []string
		env  map[string]string
		want string
	}{
		"no command":       {nil, nil, "no command"},
		"unknown command":  {[]string{"fly"}, nil, "unknown command"},
		"bad flag":         {[]string{"serve", "--nope"}, nil, "not defined"},
		"bad env duration": {[]string{"serve"}, map[string]string{"KASHI_IDLE_AFTER": "soon"}, "KASHI_IDLE_AFTER"},
		"negative":         {[]string{"serve", "--idle-after", "-1m"}, nil, "--idle-after must be positive"},
		"demo speed":       {[]string{"serve", "--demo-speed", "0"}, nil, "--demo-speed"},
		"history kept":     {[]string{"serve", "--history-retention", "0s"}, nil, "--history-retention must be positive"},
		"db max conns":     {[]string{"serve", "--db-max-conns", "0"}, nil, "--db-max-conns"},
		"env max conns":    {[]string{"serve"}, map[string]string{"KASHI_DB_MAX_CONNS": "many"}, "KASHI_DB_MAX_CONNS"},
		"time zone":        {[]string{"serve", "--time-zone", "Mars/Olympus"}, nil, "--time-zone"},
		"weekly report":    {[]string{"serve", "--weekly-report", "Monday 9am"}, nil, "--weekly-report"},
		"stray argument":   {[]string{"serve", "extra"}, nil, "unexpected argument"},
		"agent no token":   {[]string{"agent"}, nil, "--join-token"},
		"once alone":       {[]string{"agent", "--once"}, nil, "--once and --print go together"},
		"bad runtime":      {[]string{"agent", "--join-token", "j", "--container-runtime", "lxc"}, nil, "--container-runtime"},
		"bad mount":        {[]string{"agent", "--join-token", "j", "--container-runtime", "docker", "--container-mounts", "data:/d"}, nil, "is not /host/path"},
		"bad source":       {[]string{"agent", "--join-token", "j", "--source", "smi"}, nil, "--source must be nvml or dcgm"},
		"supervise usage":  {[]string{"agent", "supervise"}, nil, "usage: kashi agent supervise"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			err := run(context.Background(), tc.args, func(k string) string { return tc.env[k] }, io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("run(%q) = %v, want an error containing %q", tc.args, err, tc.want)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), []string{"version"}, func(string) string { return "" }, &out, io.Discard); err != nil || !strings.HasPrefix(out.String(), "kashi ") {
		t.Errorf("run(version) = %q, %v", out.String(), err)
	}
}

func TestUserAndTokenCommands(t *testing.T) {
	db := t.TempDir() + "/kashi.db"
	env := map[string]string{"KASHI_PASSWORD": "s3cret-pw", "KASHI_DB": db}
	getenv := func(k string) string { return env[k] }
	var out strings.Builder
	if err := run(context.Background(), []string{"user", "add", "--name", "ana", "--role", "admin"}, getenv, &out, io.Discard); err != nil {
		t.Fatalf("user add = %v", err)
	}
	if strings.Contains(out.String(), "s3cret-pw") || !strings.Contains(out.String(), "ana (admin)") {
		t.Errorf("user add printed %q", out.String())
	}
	if err := run(context.Background(), []string{"user", "add", "--name", "ana", "--role", "admin"}, getenv, io.Discard, io.Discard); err == nil {
		t.Error("adding ana twice succeeded, want an error")
	}
	out.Reset()
	if err := run(context.Background(), []string{"token", "create", "--user", "ana"}, getenv, &out, io.Discard); err != nil {
		t.Fatalf("token create = %v", err)
	}
	token := strings.TrimSpace(out.String())
	store, err := models.Open(context.Background(), db, models.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if u, _, err := store.TokenUser(context.Background(), token, time.Now()); err != nil || u.Name != "ana" {
		t.Errorf("the printed token gives %q, %v; want ana", u.Name, err)
	}
	if _, err := store.Authenticate(context.Background(), "ana", "s3cret-pw"); err != nil {
		t.Errorf("login with KASHI_PASSWORD = %v", err)
	}
	if err := run(context.Background(), []string{"token", "create", "--user", "nobody"}, getenv, io.Discard, io.Discard); err == nil {
		t.Error("a token for an unknown user was created")
	}
}

// TestUsageErrorsExit2: an unknown command, a CLI verb's bad flag, or a flag serve, agent or
// replay cannot take (unknown, a bad value, one their checks refuse) exits 2 with one line,
// not the whole usage; -h prints the flags and exits 0.
func TestUsageErrorsExit2(t *testing.T) {
	for _, args := range [][]string{{"fly"}, {"tasks", "--bogus"}, {"tasks", "-s", "bogus"}, {"serve", "--bogus"},
		{"serve", "--tick", "soon"}, {"serve", "--lang", "fr"}, {"agent", "--bogus"}, {"agent", "--source", "smi"},
		{"agent", "extra"}, {"replay", "--bogus"}} {
		var stderr strings.Builder
		err := run(context.Background(), args, func(string) string { return "" }, io.Discard, &stderr)
		if exitCode(err) != 2 || stderr.Len() > 0 || strings.Contains(err.Error(), "\n") {
			t.Errorf("run(%q) = %v (exit %d), printed %q; want exit 2, one line, nothing printed", args, err, exitCode(err), stderr.String())
		}
	}
}

// TestHelpExits0: serve -h and agent -h print their flags and exit 0.
func TestHelpExits0(t *testing.T) {
	for _, cmd := range []string{"serve", "agent", "replay"} {
		var stderr strings.Builder
		if err := run(context.Background(), []string{cmd, "-h"}, func(string) string { return "" }, io.Discard, &stderr); err != nil {
			t.Errorf("%s -h = %v, want no error (exit 0)", cmd, err)
		}
		if !strings.Contains(stderr.String(), "-log-level") && !strings.Contains(stderr.String(), "-trace") {
			t.Errorf("%s -h printed %q, want its flags", cmd, stderr.String())
		}
	}
}
