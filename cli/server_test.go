package cli_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"kashi/cli"
	"kashi/web/webtest"
)

// kashi runs a CLI verb against srv as the holder of token, with env added to the
// environment, and returns what it printed and its error.
func kashi(t *testing.T, srv *httptest.Server, token string, env map[string]string, args ...string) (string, error) {
	t.Helper()
	vars := map[string]string{"KASHI_SERVER": srv.URL, "KASHI_TOKEN": token, "KASHI_CONFIG_DIR": t.TempDir()}
	for k, v := range env {
		vars[k] = v
	}
	var out, errOut bytes.Buffer
	err := cli.Run(context.Background(), args, cli.Env{Getenv: func(k string) string { return vars[k] }, Stdout: &out, Stderr: &errOut})
	return out.String() + errOut.String(), err
}

// TestTasksSayReasonsInWords: `kashi tasks` and `kashi show` print a reclaimed task's reason
// in words, in the language of the environment (KASHI_LANG, else the POSIX locale; English
// by default), and their JSON carries the words and the codes, never the phrases' JSON.
func TestTasksSayReasonsInWords(t *testing.T) {
	s := webtest.NewServer(t)
	tk := webtest.ReclaimedTask(s, webtest.TaskFleet(s))
	srv := httptest.NewServer(s.E)
	defer srv.Close()
	en := []string{"cards idle for 2h", "no answer to the notice of 08:29 within 30m"}
	zh := []string{"卡已闲置 2小时", "08:29 的提醒在 30分钟 内无人回应"}
	for name, tc := range map[string]struct {
		env  map[string]string
		want []string
	}{
		"no locale":        {nil, en},
		"C locale":         {map[string]string{"LANG": "C.UTF-8"}, en},
		"LANG zh_CN":       {map[string]string{"LANG": "zh_CN.UTF-8"}, zh},
		"LC_ALL over LANG": {map[string]string{"LANG": "zh_CN.UTF-8", "LC_ALL": "en_US.UTF-8"}, en},
		"KASHI_LANG":       {map[string]string{"LANG": "en_US.UTF-8", "KASHI_LANG": "zh-CN"}, zh},
	} {
		t.Run(name, func(t *testing.T) {
			for _, args := range [][]string{{"tasks", "-a", "-s", "reclaimed"}, {"tasks", "-a", "-o", "json"},
				{"show", fmt.Sprint(tk.ID)}, {"show", "-o", "json", fmt.Sprint(tk.ID)}} {
				out, err := kashi(t, srv, s.Token, tc.env, args...)
				if err != nil {
					t.Fatalf("kashi %s: %v\n%s", strings.Join(args, " "), err, out)
				}
				if strings.Contains(out, `"c":`) || strings.Contains(out, `\"c\":`) {
					t.Errorf("kashi %s prints the phrases' JSON:\n%s", strings.Join(args, " "), out)
				}
				for _, w := range tc.want {
					if !strings.Contains(out, w) {
						t.Errorf("kashi %s does not say %q:\n%s", strings.Join(args, " "), w, out)
					}
				}
			}
		})
	}
}

// TestSubmitPathCheckWithoutDataRoots: `kashi submit --data-path` on a server that checks no
// paths fails with the server's refusal naming data_check, and stores nothing.
func TestSubmitPathCheckWithoutDataRoots(t *testing.T) {
	s := webtest.NewServer(t)
	webtest.TaskFleet(s)
	s.Store.SetDataRoots(nil)
	srv := httptest.NewServer(s.E)
	defer srv.Close()
	out, err := kashi(t, srv, s.Token, nil, "submit", "-p", "vision", "--gpus", "1", "--data-path", "/data/set/_READY", "--", "python", "train.py")
	var ee *cli.ExitError
	if !errors.As(err, &ee) || ee.Code != cli.ExitFailed || !strings.Contains(err.Error(), "data_check") || !strings.Contains(err.Error(), "HTTP 422") {
		t.Errorf("kashi submit --data-path = %v (%s), want exit %d naming data_check (HTTP 422)", err, out, cli.ExitFailed)
	}
	if n := s.TaskCount(); n != 0 {
		t.Errorf("tasks stored = %d, want 0", n)
	}
}

// TestSubmitPipelineFile: `kashi submit --pipeline file.yaml` submits the file's stages and
// prints the pipeline's id; its first stage is queued as a task, the second waits. A typo in
// the file fails before anything is sent; a stage the server refuses is named.
func TestSubmitPipelineFile(t *testing.T) {
	s := webtest.NewServer(t)
	s.Projects("vision")
	s.Register(webtest.Node("n1").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 2))
	srv := httptest.NewServer(s.E)
	defer srv.Close()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.yaml", `name: nightly
project: vision
stages:
  - name: clean
    gpus: 1
    command: [python, clean.py]
    output: s3://bucket/clean
  - name: train
    after: [clean]
    gpus: 2
    spec: A100-80G
    command: [python, train.py]
`)
	out, err := kashi(t, srv, s.Token, nil, "submit", "--pipeline", good)
	if err != nil || strings.TrimSpace(out) != "1" {
		t.Fatalf("kashi submit --pipeline = %q, %v; want the id 1", out, err)
	}
	rows, err := s.Store.PipelineStages(context.Background(), 1, webtest.T0)
	if err != nil || len(rows) != 2 || rows[0].State != "submitted" || rows[1].State != "waiting" || s.TaskCount() != 1 {
		t.Fatalf("stages %+v, %d tasks; want clean submitted, train waiting, one task", rows, s.TaskCount())
	}
	typo := write("typo.yaml", "name: p\nproject: vision\nstages:\n  - name: a\n    gpu: 1\n    command: [x]\n")
	if out, err := kashi(t, srv, s.Token, nil, "submit", "--pipeline", typo); err == nil || !strings.Contains(out+err.Error(), "gpu") {
		t.Fatalf("a typo: %q, %v; want it refused naming gpu", out, err)
	}
	bad := write("bad.yaml", "name: p\nproject: vision\nstages:\n  - name: a\n    gpus: 1\n    after: [zz]\n    command: [x]\n")
	if out, err := kashi(t, srv, s.Token, nil, "submit", "--pipeline", bad); err == nil || !strings.Contains(out+err.Error(), "stages[0].after") {
		t.Fatalf("an unknown parent: %q, %v; want stages[0].after named", out, err)
	}
}
