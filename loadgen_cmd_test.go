package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
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
	args := []string{"loadgen", "--agents", "4", "--viewers", "2", "--submit-rate", "5", "--duration", "2s",
		"--view-every", "500ms", "--poll-every", "500ms", "--cpu-profile", profile}
	if err := run(context.Background(), args, func(string) string { return "" }, &out, io.Discard); err != nil {
		t.Fatalf("run(loadgen) = %v\n%s", err, out.String())
	}
	for _, kind := range []string{"board", "ingest", "login", "poll", "register", "submit"} {
		if !strings.Contains(out.String(), "\n"+kind+" ") {
			t.Errorf("report has no %s row:\n%s", kind, out.String())
		}
	}
	if fi, err := os.Stat(profile); err != nil || fi.Size() == 0 {
		t.Errorf("CPU profile %s: %v, want written", profile, err)
	}
}

func TestLoadgenRefusesRemoteServer(t *testing.T) {
	err := run(context.Background(), []string{"loadgen", "--server", "http://192.0.2.1:8080"}, func(string) string { return "" }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "not on loopback") {
		t.Errorf("run(loadgen --server remote) = %v, want refused", err)
	}
}
