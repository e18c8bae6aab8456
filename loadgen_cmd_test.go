package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A short loadgen run starts a server, registers agents, logs viewers in through the login
// form, submits tasks with a token, and finishes without errors, writing the CPU profile of
// the measured load when asked.
func TestLoadgenShortRun(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server for two seconds")
	}
	var out strings.Builder
	profile := filepath.Join(t.TempDir(), "cpu.prof")
	args := []string{"loadgen", "--agents", "4", "--viewers", "2", "--submit-rate", "5", "--duration", "3s",
		"--view-every", "500ms", "--sample-every", "500ms", "--task-runtime", "500ms", "--cpu-profile", profile}
	if err := run(context.Background(), args, func(string) string { return "" }, &out, io.Discard); err != nil {
		t.Fatalf("run(loadgen) = %v\n%s", err, out.String())
	}
	for _, kind := range []string{"board", "ingest", "login", "poll", "register", "start", "status", "submit"} {
		if !strings.Contains(out.String(), "\n"+kind+" ") {
			t.Errorf("report has no %s row:\n%s", kind, out.String())
		}
	}
	if fi, err := os.Stat(profile); err != nil || fi.Size() == 0 {
		t.Errorf("CPU profile %s: %v, want written", profile, err)
	}
	if !strings.Contains(out.String(), "database pool ") || strings.Contains(out.String(), "not exported") {
		t.Errorf("report does not read the server's database pool waits:\n%s", out.String())
	}
	for _, kind := range []string{"board", "ingest", "status", "submit"} {
		if !regexp.MustCompile(`the server's own time .*\b` + kind + ` p50 ≤ [0-9.]+ ms, p99 [^(]+ \([1-9]`).MatchString(out.String()) {
			t.Errorf("report does not give the server's own time of %s:\n%s", kind, out.String())
		}
	}
}

// A step test runs each step on a fresh server and says, step by step, what held.
func TestLoadgenSteps(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two servers for two seconds each")
	}
	var out strings.Builder
	args := []string{"loadgen", "--step-agents", "2,4", "--viewers", "1", "--submit-rate", "2", "--duration", "2s",
		"--view-every", "500ms", "--sample-every", "500ms", "--task-runtime", "500ms"}
	if err := run(context.Background(), args, func(string) string { return "" }, &out, io.Discard); err != nil {
		t.Fatalf("run(loadgen --step-agents) = %v\n%s", err, out.String())
	}
	for _, want := range []string{"== step 1: 2 agents (16 GPUs)", "== step 2: 4 agents (32 GPUs)", "\n2       ", "\n4       ", "stopped holding at: "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("step report lacks %q:\n%s", want, out.String())
		}
	}
	for _, bad := range [][]string{{"--step-agents", "0"}, {"--step-agents", "8193"}, {"--step-agents", "1,x"}, {"--step-agents", "4", "--server", "http://127.0.0.1:1"}} {
		if err := run(context.Background(), append([]string{"loadgen"}, bad...), func(string) string { return "" }, io.Discard, io.Discard); err == nil {
			t.Errorf("loadgen %v ran, want refused", bad)
		}
	}
}

func TestLoadgenRefusesRemoteServer(t *testing.T) {
	err := run(context.Background(), []string{"loadgen", "--server", "http://192.0.2.1:8080"}, func(string) string { return "" }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "not on loopback") {
		t.Errorf("run(loadgen --server remote) = %v, want refused", err)
	}
}
