package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"kashi/demo"
)

// TestDemoShowsLiveBoard runs `kashi serve --demo` as a newcomer would and checks, within
// 15 s of starting, that the board shows at least 64 GPU cards, some held by tasks, and that
// the cards' values change between two refreshes; then that the Models page shows the demo's
// chat service's time to first token, scraped by the demo's agents.
func TestDemoShowsLiveBoard(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo for several seconds")
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
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve returned %v after shutdown", err)
			}
		case <-time.After(20 * time.Second):
			t.Error("serve did not shut down within 20 s")
		}
	}()

	start := time.Now()
	deadline := start.Add(15 * time.Second)
	client := loggedIn(t, "http://"+addr, "viewer", deadline)
	var first string
	for {
		if time.Now().After(deadline) {
			t.Fatalf("within 15 s the board never showed ≥ 64 cards, some held, with changing values (last: %q)", summary(first))
		}
		time.Sleep(500 * time.Millisecond)
		page, cards, held := board(t, client, "http://"+addr+"/")
		if cards < 64 || held == 0 {
			continue
		}
		if first == "" {
			first = page
			continue
		}
		if page != first {
			t.Logf("board live after %s: %d cards, %d held", time.Since(start).Round(time.Millisecond), cards, held)
			break
		}
	}

	// The JSON API shows the same fleet.
	resp, err := client.Get("http://" + addr + "/api/v1/gpus")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var gpus []struct {
		State string `json:"state"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&gpus); err != nil || len(gpus) < 64 {
		t.Fatalf("GET /api/v1/gpus = %d GPUs, %v; want ≥ 64", len(gpus), err)
	}

	// The demo's services run as simulated model servers whose pages the agents scrape: the
	// Models page shows the chat service's time to first token and traffic from them.
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		ttft, rps := modelsLine(t, client, "http://"+addr+"/models?range=1h", "chat")
		if ttft != "" && ttft != "—" && rps != "0.00" {
			t.Logf("Models page: chat's TTFT p50 %s at %s requests/s", ttft, rps)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("within 20 s of a live board the Models page never showed chat's TTFT (last: %q, %q requests/s)", ttft, rps)
		}
	}

	// The simulated tasks write their progress, which the agents ship as they ship a real
	// task's log: a running task's live tail has its lines.
	member := loggedIn(t, "http://"+addr, "member", time.Now().Add(10*time.Second))
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		if tail := runningLog(t, member, "http://"+addr); strings.Contains(tail, "kashi-sim: ") {
			t.Logf("a running task's log: %q", tail)
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("within 20 s no running task of member's projects had a line in its log")
		}
	}
}

// runningLog is the log tail of the first running task of the client's projects that has
// one, "" when none has.
func runningLog(t *testing.T, client *http.Client, base string) string {
	t.Helper()
	resp, err := client.Get(base + "/api/v1/tasks?state=running")
	if err != nil {
		t.Fatal(err)
	}
	var tasks []struct {
		ID    int64  `json:"id"`
		State string `json:"state"`
	}
	err = json.NewDecoder(resp.Body).Decode(&tasks)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range tasks {
		if tk.State != "running" {
			continue
		}
		resp, err := client.Get(fmt.Sprintf("%s/api/v1/tasks/%d/log", base, tk.ID))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if len(b) > 0 {
			return string(b)
		}
	}
	return ""
}

// modelsLine reads a service's TTFT p50 and request rate from the Models page.
func modelsLine(t *testing.T, client *http.Client, url, name string) (ttft, rps string) {
	t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		return "", ""
	}
	defer resp.Body.Close()
	doc, err := goquery.NewDocumentFromReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	doc.Find(`[data-testid="service"]`).Each(func(_ int, s *goquery.Selection) {
		if strings.TrimSpace(s.Find(`[data-testid="service-name"]`).Text()) == name {
			ttft = strings.TrimSpace(s.Find(`[data-testid="ttft-p50"]`).Text())
			rps = strings.TrimSpace(s.Find(`[data-testid="service-rps"]`).Text())
		}
	})
	return ttft, rps
}

// board fetches the board and returns the text of its cards, their count and how many are held.
func board(t *testing.T, client *http.Client, url string) (text string, cards, held int) {
	t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		return "", 0, 0
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	doc.Find(`[data-testid="gpu-card"]`).Each(func(_ int, s *goquery.Selection) {
		cards++
		if s.HasClass("busy") || s.HasClass("idle") {
			held++
		}
		b.WriteString(s.Text())
	})
	return b.String(), cards, held
}

// loggedIn logs in as a demo user through the login form, as a person would, and returns a
// client carrying the session.
func loggedIn(t *testing.T, base, user string, deadline time.Time) *http.Client {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 5 * time.Second}
	for {
		resp, err := client.Get(base + "/login")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server never answered: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	u, _ := url.Parse(base)
	var csrf string
	for _, ck := range jar.Cookies(u) {
		if ck.Name == "_csrf" {
			csrf = ck.Value
		}
	}
	resp, err := client.PostForm(base+"/login", url.Values{"username": {user}, "password": {demo.Password}, "_csrf": {csrf}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Request.URL.Path != "/" {
		t.Fatalf("logging in as %s ended on %s, want /", user, resp.Request.URL)
	}
	return client
}

func summary(s string) string {
	if len(s) > 200 {
		return s[:200]
	}
	return s
}

// freeAddr returns a loopback address with a port free at the time of asking.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// TestDemoOnAFasterClock runs one demo on a clock four times the default and checks, side
// by side, what its first minutes must show: the scaling loop acts on its demand, its rerun
// and trial, and its pipelines. One demo for the three saves two demos' start-up and past.
func TestDemoOnAFasterClock(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo for up to five minutes")
	}
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--demo", "--demo-speed", "240", "--addr", addr, "--log-level", "error"},
			func(string) string { return "" }, io.Discard, io.Discard)
	}()
	defer func() { cancel(); <-done }()
	base := "http://" + addr
	t.Run("side by side", func(t *testing.T) {
		t.Run("scales", func(t *testing.T) { t.Parallel(); demoScales(t, base) })
		t.Run("rerun", func(t *testing.T) { t.Parallel(); demoShowsRerun(t, base) })
		t.Run("pipelines", func(t *testing.T) { t.Parallel(); demoShowsPipelines(t, base) })
	})
}

// demoScales checks that the scaling loop acts on the demo's demand: a pool grows (and every
// event explains itself) within a minute of real time, which at the default speed is the
// first step within two minutes.
func demoScales(t *testing.T, base string) {
	deadline := time.Now().Add(60 * time.Second)
	client := loggedIn(t, base, "admin", deadline)
	for time.Now().Before(deadline) {
		time.Sleep(time.Second)
		resp, err := client.Get(base + "/api/v1/pools")
		if err != nil {
			continue
		}
		var pools []struct {
			Name   string `json:"name"`
			Events []struct {
				Kind   string `json:"kind"`
				From   int    `json:"from"`
				To     int    `json:"to"`
				Detail string `json:"detail"`
			} `json:"events"`
		}
		err = json.NewDecoder(resp.Body).Decode(&pools)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("GET /api/v1/pools: %v", err)
		}
		for _, p := range pools {
			for _, e := range p.Events {
				if e.Kind == "scale-up" && e.To > e.From && e.Detail != "" {
					t.Logf("%s %d→%d: %s", p.Name, e.From, e.To, e.Detail)
					return
				}
			}
		}
	}
	t.Fatal("no pool grew within a minute of demo time ×240")
}

// demoShowsRerun checks that the demo's training task that writes checkpoints, whose node
// the demo loses after its first, is queued again and resumes on another node from that
// checkpoint within its first minutes, and that its page lists both attempts, the first lost
// with its node after its checkpoint, in English and in Chinese; then that its trial of
// finetune-7b on two specs ends with a proposal, its page in both languages.
func demoShowsRerun(t *testing.T, base string) {
	deadline := time.Now().Add(3 * time.Minute)
	client := loggedIn(t, base, "member", deadline)
	var id int64
	for ; time.Now().Before(deadline); time.Sleep(time.Second) {
		var tasks []struct {
			ID      int64  `json:"id"`
			Name    string `json:"name"`
			Attempt int    `json:"attempt"`
			State   string `json:"state"`
		}
		if err := getJSONAs(client, base+"/api/v1/tasks?project=vision&state=running", &tasks); err != nil {
			continue
		}
		for _, tk := range tasks {
			if tk.Name == demo.RerunTask && tk.Attempt == 2 {
				id = tk.ID
			}
		}
		if id != 0 {
			break
		}
	}
	if id == 0 {
		t.Fatalf("within 3 minutes the demo's %s never ran a second attempt", demo.RerunTask)
	}
	for _, lang := range []string{"en", "zh-CN"} {
		req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/tasks/%d", base, id), nil)
		req.Header.Set("Accept-Language", lang)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := goquery.NewDocumentFromReader(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		rows := doc.Find(`[data-testid=task-attempts] [data-testid=task-attempt-row]`)
		first := rows.First()
		if rows.Length() != 2 || first.AttrOr("data-ending", "") != "lost" ||
			!strings.Contains(first.Find(`[data-testid=attempt-checkpoint]`).Text(), "sim-ckpt:") ||
			!strings.Contains(first.Find(`[data-testid=attempt-lost]`).Text(), ".") {
			t.Errorf("%s page of task %d: attempts %q", lang, id, doc.Find(`[data-testid=task-attempts]`).Text())
		}
	}

	// Its trial (小规模验证) starts once the rerun's node is given up: within a minute more its
	// four runs end and its page compares them and proposes the full run.
	deadline = time.Now().Add(2 * time.Minute)
	var trial struct {
		ID       int64           `json:"id"`
		Done     bool            `json:"done"`
		Runs     []any           `json:"runs"`
		Proposal *map[string]any `json:"proposal"`
	}
	for ; time.Now().Before(deadline) && (trial.ID == 0 || trial.Proposal == nil); time.Sleep(time.Second) {
		if trial.ID == 0 {
			var tasks []struct {
				Name    string `json:"name"`
				TrialID *int64 `json:"trial_id"`
			}
			if err := getJSONAs(client, base+"/api/v1/tasks?project=vision", &tasks); err != nil {
				continue
			}
			for _, tk := range tasks {
				if strings.HasPrefix(tk.Name, demo.TrialTask+" · trial") && tk.TrialID != nil {
					trial.ID = *tk.TrialID
				}
			}
			continue
		}
		getJSONAs(client, fmt.Sprintf("%s/api/v1/trials/%d", base, trial.ID), &trial)
	}
	if trial.Proposal == nil || len(trial.Runs) != 4 {
		t.Fatalf("the demo's trial %d: %d runs, done %v, proposal %v; want 4 runs and a proposal within a minute of the rerun", trial.ID, len(trial.Runs), trial.Done, trial.Proposal)
	}
	for _, lang := range []string{"en", "zh-CN"} {
		req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/trials/%d", base, trial.ID), nil)
		req.Header.Set("Accept-Language", lang)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := goquery.NewDocumentFromReader(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if doc.Find(`[data-testid=trial-run]`).Length() != 4 || doc.Find(`[data-testid=trial-full]`).Length() != 1 ||
			strings.Contains(doc.Find(`[data-testid=trial-runs]`).Text(), "trial.") {
			t.Errorf("%s trial page: %q", lang, doc.Find(`main`).Text())
		}
	}
}

// getJSONAs gets url with client and decodes its JSON into out.
func getJSONAs(client *http.Client, url string, out any) error {
	resp, err := client.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

// demoShowsPipelines checks that the demo's two pipelines are there from its first minute:
// the nightly one past its cleaning, on to its pretraining on the A100 pool, and the broken
// one failed at its fine-tuning with its evaluation skipped; the broken one's page shows the
// graph and the rerun, in English and in Chinese.
func demoShowsPipelines(t *testing.T, base string) {
	deadline := time.Now().Add(2 * time.Minute)
	client := loggedIn(t, base, "member", deadline)
	type stage struct {
		Name  string `json:"name"`
		State string `json:"state"`
	}
	type pipeline struct {
		ID     int64   `json:"id"`
		Name   string  `json:"name"`
		State  string  `json:"state"`
		Stages []stage `json:"stages"`
	}
	var nightly, broken pipeline
	for ; time.Now().Before(deadline); time.Sleep(time.Second) {
		var list []pipeline
		if err := getJSONAs(client, base+"/api/v1/pipelines", &list); err != nil {
			continue
		}
		for _, p := range list {
			var full pipeline
			if err := getJSONAs(client, fmt.Sprintf("%s/api/v1/pipelines/%d", base, p.ID), &full); err != nil {
				continue
			}
			switch p.Name {
			case demo.PipelineNightly:
				nightly = full
			case demo.PipelineBroken:
				broken = full
			}
		}
		if len(nightly.Stages) == 3 && nightly.Stages[0].State == "succeeded" && broken.State == "failed" {
			break
		}
	}
	if len(nightly.Stages) != 3 || nightly.Stages[0].State != "succeeded" || nightly.Stages[1].State == "waiting" {
		t.Fatalf("the nightly pipeline within 2 minutes: %+v; want clean done, pretrain submitted", nightly)
	}
	if broken.State != "failed" || len(broken.Stages) != 3 || broken.Stages[2].State != "skipped" {
		t.Fatalf("the broken pipeline within 2 minutes: %+v; want failed, evaluate skipped", broken)
	}
	// The demo's pipeline template, scheduled nightly in the server's time zone.
	var tpl struct {
		ID     int64 `json:"id"`
		Stages []struct {
			Name string `json:"name"`
		} `json:"stages"`
		Schedules []struct {
			Cron     string `json:"cron"`
			TimeZone string `json:"time_zone"`
			Overlap  string `json:"overlap"`
		} `json:"schedules"`
	}
	for ; time.Now().Before(deadline) && len(tpl.Schedules) == 0; time.Sleep(time.Second) {
		var projects []struct {
			ID   int64  `json:"id"`
			Name string `json:"name"`
		}
		getJSONAs(client, base+"/api/v1/projects", &projects)
		for _, p := range projects {
			var list []struct {
				ID   int64  `json:"id"`
				Name string `json:"name"`
			}
			if p.Name != "vision" || getJSONAs(client, fmt.Sprintf("%s/api/v1/projects/%d/templates", base, p.ID), &list) != nil {
				continue
			}
			for _, l := range list {
				if l.Name == demo.TemplateNightly {
					getJSONAs(client, fmt.Sprintf("%s/api/v1/templates/%d", base, l.ID), &tpl)
				}
			}
		}
	}
	if len(tpl.Stages) != 3 || len(tpl.Schedules) != 1 || tpl.Schedules[0].Cron != "0 22 * * *" ||
		tpl.Schedules[0].TimeZone != "Asia/Shanghai" || tpl.Schedules[0].Overlap != "skip" {
		t.Errorf("the demo's pipeline template %s = %+v; want 3 stages scheduled at 0 22 * * * in Asia/Shanghai, skipping", demo.TemplateNightly, tpl)
	}
	for lang, want := range map[string]string{"en": "Rerun from the failed stage", "zh-CN": "从失败的阶段重跑"} {
		req, _ := http.NewRequest(http.MethodGet, fmt.Sprintf("%s/pipelines/%d", base, broken.ID), nil)
		req.Header.Set("Accept-Language", lang)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := goquery.NewDocumentFromReader(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if doc.Find(`[data-testid=pipeline-graph] [data-testid=stage]`).Length() != 3 || !strings.Contains(doc.Text(), want) {
			t.Errorf("%s page of pipeline %d: %q", lang, broken.ID, doc.Find(`main`).Text())
		}
	}
}
