package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMetricsPage runs `kashi serve --demo` with a scrape token, waits until /metrics shows
// the demo's cards held, its pools sized and its month's bills, and checks the live page with
// `promtool check metrics` (skipped when promtool is absent); a scrape without the token gets
// the same page but the money.
func TestMetricsPage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo for several seconds")
	}
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not installed (Debian package prometheus)")
	}
	addr := freeAddr(t)
	const token = "scrape-token-of-the-test"
	tokenFile := filepath.Join(t.TempDir(), "metrics.token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--demo", "--addr", addr, "--log-level", "warn", "--metrics-token-file", tokenFile},
			func(string) string { return "" }, io.Discard, io.Discard)
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve returned %v after shutdown", err)
		}
	}()
	want := []string{"kashi_gpus{", "kashi_project_gpus_held{", "kashi_pool_size_nodes{", "kashi_pool_failing{", "kashi_queue_tasks{",
		"kashi_queue_wait_seconds_bucket{", "kashi_month_bill_yuan{", "kashi_ingest_lag_seconds ", "kashi_reclaims_total ",
		"kashi_build_info{", `kashi_metrics_scrape_errors_total{part="board"} 0`}
	var page []byte
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("within 30 s /metrics never showed all of %q; last page:\n%s", want, page)
		}
		var ok bool
		if page, ok = scrape(addr, token); ok && containsAll(string(page), want) {
			break
		}
	}
	open, _ := scrape(addr, "")
	for _, family := range []string{"kashi_month_bill_yuan", "kashi_month_card_seconds"} {
		if strings.Contains(string(open), family+"{") {
			t.Errorf("a scrape without the token shows %s", family)
		}
	}
	if !strings.Contains(string(open), "kashi_gpus{") {
		t.Errorf("a scrape without the token has no kashi_gpus")
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(page)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
}

// scrape reads /metrics with token (none when empty); ok is false unless it answered 200.
func scrape(addr, token string) (page []byte, ok bool) {
	req, _ := http.NewRequest(http.MethodGet, "http://"+addr+"/metrics", nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, false
	}
	defer resp.Body.Close()
	page, _ = io.ReadAll(resp.Body)
	return page, resp.StatusCode == http.StatusOK
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
