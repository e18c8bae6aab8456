package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"kashi/cli"
	"kashi/models"
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

// TestSubmitPipelineTemplate: a lead saves a pipeline template through the API (its
// stages' lanes and priorities defaulted), schedules it nightly with overlap skip (a
// member's schedule is 403), and `kashi submit --pipeline-template ID` as a member submits
// its pipeline, printing the id; a stranger is refused by the store (403); a bad id or a
// file beside it is a usage error.
func TestSubmitPipelineTemplate(t *testing.T) {
	s := webtest.NewServer(t)
	s.Projects("vision")
	s.Register(webtest.Node("n1").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 2))
	lead, member := s.MemberAs("lee", "vision", models.ProjectRoleLead), s.Member("mia", "vision")
	stranger := s.UserToken("ola", models.RoleUser)
	srv := httptest.NewServer(s.E)
	defer srv.Close()
	p, err := s.Store.ProjectByName(context.Background(), "vision")
	if err != nil {
		t.Fatal(err)
	}
	w := s.Post(fmt.Sprintf("/api/v1/projects/%d/templates", p.ID), `{"name": "nightly-vit", "stages": [
		{"name": "clean", "output": "s3://bucket/clean", "task": {"gpus": 1, "command": ["python", "clean.py"]}},
		{"name": "train", "after": ["clean"], "task": {"gpus": 2, "spec": "A100-80G", "command": ["python", "train.py"]}}]}`,
		"Authorization", "Bearer "+lead)
	if w.Code != 201 {
		t.Fatalf("create the pipeline template = %d %s", w.Code, w.Body)
	}
	var tpl struct{ ID int64 }
	if err := json.Unmarshal(w.Body.Bytes(), &tpl); err != nil {
		t.Fatal(err)
	}
	sched := `{"cron": "0 2 * * *", "time_zone": "Asia/Shanghai"}`
	if w := s.Post(fmt.Sprintf("/api/v1/templates/%d/schedules", tpl.ID), sched, "Authorization", "Bearer "+member); w.Code != 403 {
		t.Errorf("a member's schedule = %d %s, want 403", w.Code, w.Body)
	}
	if w := s.Post(fmt.Sprintf("/api/v1/templates/%d/schedules", tpl.ID), sched, "Authorization", "Bearer "+lead); w.Code != 201 {
		t.Errorf("the lead's nightly schedule = %d %s, want 201", w.Code, w.Body)
	}
	id := fmt.Sprint(tpl.ID)
	for _, args := range [][]string{{"submit", "--pipeline-template", "x"}, {"submit", "--pipeline-template", id, "--pipeline", "f.yaml"}} {
		var ee *cli.ExitError
		if _, err := kashi(t, srv, member, nil, args...); !errors.As(err, &ee) || ee.Code != cli.ExitUsage {
			t.Errorf("kashi %v: %v, want a usage error", args, err)
		}
	}
	out, err := kashi(t, srv, member, nil, "submit", "--pipeline-template", id)
	if err != nil || strings.TrimSpace(out) != "1" {
		t.Fatalf("kashi submit --pipeline-template = %q, %v; want the id 1", out, err)
	}
	rows, err := s.Store.PipelineStages(context.Background(), 1, webtest.T0)
	if err != nil || len(rows) != 2 || rows[0].State != "submitted" || rows[1].State != "waiting" {
		t.Fatalf("stages %+v, %v; want clean submitted, train waiting", rows, err)
	}
	if out, err := kashi(t, srv, stranger, nil, "submit", "--pipeline-template", id); err == nil || !strings.Contains(out+err.Error(), "403") {
		t.Errorf("a stranger's submit = %q, %v; want it refused (403)", out, err)
	}
}

// TestCancelPipeline: `kashi cancel --pipeline ID` cancels the pipeline and prints its id and
// state; its queued stage task is cancelled and the waiting stage skipped. A second cancel
// exits non-zero; a bad id or a task id beside it is a usage error before anything is sent.
func TestCancelPipeline(t *testing.T) {
	s := webtest.NewServer(t)
	s.Projects("vision")
	s.Register(webtest.Node("n1").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 2))
	srv := httptest.NewServer(s.E)
	defer srv.Close()
	ctx := context.Background()
	clean := models.NewStage{Name: "clean", Task: webtest.Task("clean").Of("vision").Ready().Nt}
	train := models.NewStage{Name: "train", After: []string{"clean"}, Task: webtest.Task("train").Of("vision").Ready().Nt}
	pipe, err := s.Store.CreatePipeline(ctx, models.NewPipeline{Project: "vision", Name: "nightly", Owner: "admin",
		Stages: []models.NewStage{clean, train}}, models.DefaultTaskLimits, webtest.T0)
	if err != nil {
		t.Fatal(err)
	}
	id := fmt.Sprint(pipe.ID)
	for _, args := range [][]string{{"cancel", "--pipeline", "x"}, {"cancel", "--pipeline", "0"}, {"cancel", "--pipeline", id, "3"}, {"cancel"}} {
		var ee *cli.ExitError
		if _, err := kashi(t, srv, s.Token, nil, args...); !errors.As(err, &ee) || ee.Code != cli.ExitUsage {
			t.Errorf("kashi %v: %v, want a usage error", args, err)
		}
	}
	out, err := kashi(t, srv, s.Token, nil, "cancel", "--pipeline", id)
	if err != nil || strings.TrimSpace(out) != "pipeline "+id+" cancelled" {
		t.Fatalf("kashi cancel --pipeline %s = %q, %v; want \"pipeline %s cancelled\"", id, out, err, id)
	}
	rows, err := s.Store.PipelineStages(ctx, pipe.ID, webtest.T0)
	if err != nil || len(rows) != 2 || rows[0].TaskState != models.TaskCancelled || rows[1].State != models.StageSkipped {
		t.Fatalf("stages %+v, %v; want clean's task cancelled, train skipped", rows, err)
	}
	if _, err := kashi(t, srv, s.Token, nil, "cancel", "--pipeline", id); err == nil {
		t.Fatal("a second cancel succeeded, want it refused")
	}
}

// TestSubmitWaitFailedStart: `kashi submit --wait` of a task whose command could not be
// started exits non-zero (it has no exit code, not 0), and `kashi show` says it has none.
func TestSubmitWaitFailedStart(t *testing.T) {
	s := webtest.NewServer(t)
	nodes := webtest.TaskFleet(s)
	srv := httptest.NewServer(s.E)
	defer srv.Close()
	vars := map[string]string{"KASHI_SERVER": srv.URL, "KASHI_TOKEN": s.Token, "KASHI_CONFIG_DIR": t.TempDir()}
	done := make(chan error, 1)
	go func() {
		done <- cli.Run(t.Context(), []string{"submit", "--wait", "-p", "vision", "--gpus", "1", "--", "no-such-command"},
			cli.Env{Getenv: func(k string) string { return vars[k] }, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Poll: 10 * time.Millisecond})
	}()
	var id int64
	for deadline := time.Now().Add(time.Minute); id == 0; time.Sleep(10 * time.Millisecond) {
		if ts, _ := s.Store.Tasks(t.Context(), models.TaskFilter{}); len(ts) == 1 {
			id = ts[0].ID
		} else if time.Now().After(deadline) {
			t.Fatal("kashi submit stored no task")
		}
	}
	s.Place(models.Task{ID: id}, webtest.T0, webtest.UUIDOf("n1", 0))
	s.Report(nodes["n1"], id, `{"state":"failed-to-start","exit_code":-1,"message":"exec: no-such-command: not found"}`)
	err := <-done
	var ee *cli.ExitError
	if !errors.As(err, &ee) || ee.Code != cli.ExitFailed || !strings.Contains(err.Error(), "failed") {
		t.Errorf("kashi submit --wait of a task that failed to start = %v, want exit %d saying it failed", err, cli.ExitFailed)
	}
	out, err := kashi(t, srv, s.Token, nil, "show", fmt.Sprint(id))
	if err != nil || !strings.Contains(out, "Exit code: —") {
		t.Errorf("kashi show = %v\n%s\nwant \"Exit code: —\"", err, out)
	}
}

// TestTasksFiltersAndColumns: kashi tasks refuses a state or owner it does not know (exit 2,
// one line), takes lists and Slurm's state codes, reckons AGE and TIME from the server's
// clock (a fixed clock here, far from the wall's) and names the nodes a task runs on.
func TestTasksFiltersAndColumns(t *testing.T) {
	s := webtest.NewServer(t)
	tk := webtest.ReclaimedTask(s, webtest.TaskFleet(s))
	srv := httptest.NewServer(s.E)
	defer srv.Close()
	for _, args := range [][]string{{"tasks", "-a", "-s", "bogus"}, {"tasks", "-u", "nosuchuser"}, {"tasks", "-a", "-t", "R,bogus"},
		{"tasks", "-u", "tester,nosuchuser"}, {"tasks", "--bogus"}, {"tasks", "--format", "%Z"}, {"show"}} {
		out, err := kashi(t, srv, s.Token, nil, args...)
		var ee *cli.ExitError
		if !errors.As(err, &ee) || ee.Code != cli.ExitUsage || strings.Contains(err.Error(), "\n") || strings.Contains(out, "usage:") {
			t.Errorf("kashi %s = %v (%q), want exit %d with one line and no usage", strings.Join(args, " "), err, out, cli.ExitUsage)
		}
	}
	id := fmt.Sprint(tk.ID)
	for _, args := range [][]string{{"tasks", "-a", "-t", "PR"}, {"tasks", "-u", "tester," + tk.Owner, "-t", "reclaimed,R"},
		{"tasks", "-A", "vision", "--state", "PREEMPTED", "-a"}} {
		out, err := kashi(t, srv, s.Token, nil, args...)
		if err != nil || !strings.Contains(out, "\n"+id+" ") {
			t.Errorf("kashi %s = %v\n%s\nwant task %s", strings.Join(args, " "), err, out, id)
		}
	}
	// The task was submitted 3 h before the server's clock, ran 2h59m on n1 and ended.
	out, err := kashi(t, srv, s.Token, nil, "tasks", "-a", "--noheader")
	if err != nil || strings.Contains(out, "AGE") || !strings.Contains(out, " 3h ") || !strings.Contains(out, " n1 ") {
		t.Errorf("kashi tasks -a --noheader = %v\n%s\nwant no header, AGE 3h by the server's clock, NODELIST n1", err, out)
	}
	out, err = kashi(t, srv, s.Token, nil, "tasks", "-a", "--format", "%i|%t|%N", "--noheader")
	if want := id + "|PR|n1\n"; err != nil || out != want {
		t.Errorf("kashi tasks --format = %v %q, want %q", err, out, want)
	}
	if out, err = kashi(t, srv, s.Token, nil, "tasks", "-a", "--json"); err != nil || !strings.Contains(out, `"nodes": [`) {
		t.Errorf("kashi tasks --json = %v\n%s\nwant the task's nodes", err, out)
	}
}

// `kashi __complete projects` and `tasks` print what the server shows the caller, one a
// line: the completion scripts' values.
func TestCompleteValuesFromServer(t *testing.T) {
	s := webtest.NewServer(t)
	webtest.TaskFleet(s) // and project vision
	s.Projects("nlp")
	srv := httptest.NewServer(s.E)
	defer srv.Close()
	out, err := kashi(t, srv, s.Token, nil, "submit", "-p", "vision", "--gpus", "1", "--", "python", "train.py")
	if err != nil {
		t.Fatalf("submit: %v\n%s", err, out)
	}
	ts, err := s.Store.Tasks(t.Context(), models.TaskFilter{})
	if err != nil || len(ts) != 1 {
		t.Fatalf("tasks = %v, %v", ts, err)
	}
	for kind, want := range map[string][]string{"projects": {"nlp", "vision"}, "tasks": {fmt.Sprint(ts[0].ID)}} {
		out, err := kashi(t, srv, s.Token, nil, "__complete", kind)
		got := strings.Fields(out)
		slices.Sort(got)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("__complete %s = %q, %v; want %v", kind, out, err, want)
		}
	}
	if _, err := kashi(t, srv, s.Token, nil, "__complete", "nodes"); err == nil {
		t.Error("__complete nodes succeeded, want a usage error")
	}
}
