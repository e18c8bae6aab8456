package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestMetricsPage runs `kashi serve --demo`, waits until /metrics shows the demo's cards
// held and its pools sized, and checks the live page with `promtool check metrics` (skipped
// when promtool is absent).
func TestMetricsPage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo for several seconds")
	}
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not installed (Debian package prometheus)")
	}
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--demo", "--addr", addr, "--log-level", "warn"},
			func(string) string { return "" }, io.Discard, io.Discard)
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve returned %v after shutdown", err)
		}
	}()
	want := []string{"kashi_gpus{", "kashi_project_gpus_held{", "kashi_pool_size_nodes{", "kashi_queue_tasks{",
		"kashi_queue_wait_seconds_bucket{", "kashi_month_bill_yuan{", "kashi_ingest_lag_seconds ", "kashi_reclaims_total "}
	var page []byte
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("within 30 s /metrics never showed all of %q; last page:\n%s", want, page)
		}
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			continue
		}
		page, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK && containsAll(string(page), want) {
			break
		}
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(page)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
