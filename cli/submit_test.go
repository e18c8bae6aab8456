package cli

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/api"
)

// buildSpec parses submit's arguments with the config folder dir and builds the request.
func buildSpec(t *testing.T, dir string, stdin string, args ...string) (api.TaskRequest, error) {
	t.Helper()
	e := &Env{Getenv: func(k string) string { return map[string]string{"KASHI_CONFIG_DIR": dir}[k] },
		Stdin: strings.NewReader(stdin), Stdout: io.Discard, Stderr: io.Discard}
	f := newFlagSet(e, "submit")
	var s submitFlags
	s.register(f)
	if err := f.parse(args, 0, -1); err != nil {
		return api.TaskRequest{}, err
	}
	return s.build(e, f)
}

func TestSubmitMergesTemplateFileAndFlags(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "templates"), 0o755)
	os.WriteFile(filepath.Join(dir, "templates", "nightly.yaml"), []byte("project: vision\ngpus: 8\nqueue: long\nenv: {A: \"1\"}\ncommand: [python, nightly.py]\n"), 0o644)
	got, err := buildSpec(t, dir, `{"gpus": 4, "data_check": {"path": "/data/x"}}`, "--template", "nightly", "-f", "-", "--env", "B=2", "-p", "nlp")
	if err != nil {
		t.Fatal(err)
	}
	want := api.TaskRequest{Project: "nlp", Name: "python", GPUs: 4, Queue: "long", Env: map[string]string{"A": "1", "B": "2"},
		Command: []string{"python", "nightly.py"}, DataCheck: &api.DataCheck{Path: "/data/x"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("build() mismatch (-want +got):\n%s", diff)
	}
}

func TestSubmitService(t *testing.T) {
	got, err := buildSpec(t, t.TempDir(), "", "-p", "nlp", "--gpus", "1", "--service", "qwen2.5-7b", "--replicas", "2",
		"--metrics-port", "8000", "--ttft-target-ms", "300", "--", "sh", "-c", "vllm serve --port $KASHI_METRICS_PORT")
	if err != nil {
		t.Fatal(err)
	}
	want := api.TaskRequest{Project: "nlp", Name: "sh", GPUs: 1, Command: []string{"sh", "-c", "vllm serve --port $KASHI_METRICS_PORT"},
		Kind: "service", Model: "qwen2.5-7b", Replicas: 2, MetricsPort: 8000, TTFTTargetMS: 300}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("build() mismatch (-want +got):\n%s", diff)
	}
}

// TestSubmitAttempts: --max-attempts and --rerun-on-failure override a task file's.
func TestSubmitAttempts(t *testing.T) {
	got, err := buildSpec(t, t.TempDir(), "max_attempts: 5\nrerun_on_failure: true\n", "-f", "-", "-p", "nlp", "--gpus", "1",
		"--max-attempts", "3", "--rerun-on-failure=false", "--", "train")
	if err != nil {
		t.Fatal(err)
	}
	if got.MaxAttempts != 3 || got.RerunOnFailure == nil || *got.RerunOnFailure {
		t.Errorf("build() = %d attempts, rerun on failure %v; want 3, false", got.MaxAttempts, got.RerunOnFailure)
	}
}

// TestSubmitPlaceMinimums: --min-inter-node-gbps, --min-storage-mbps and
// --allow-no-interconnect override a task file's.
func TestSubmitPlaceMinimums(t *testing.T) {
	got, err := buildSpec(t, t.TempDir(), "min_inter_node_gbps: 100\nmin_storage_mbps: 500\n", "-f", "-", "-p", "nlp", "--gpus", "16",
		"--min-inter-node-gbps", "800", "--allow-no-interconnect", "--", "train")
	if err != nil {
		t.Fatal(err)
	}
	if got.MinInterNodeGbps != 800 || got.MinStorageMBps != 500 || got.AllowNoInterconnect == nil || !*got.AllowNoInterconnect {
		t.Errorf("build() = %d Gb/s, %d MB/s, allow %v; want 800, 500, true", got.MinInterNodeGbps, got.MinStorageMBps, got.AllowNoInterconnect)
	}
}

func TestSubmitRefusesBadInput(t *testing.T) {
	tests := map[string]struct {
		stdin string
		args  []string
		want  string
	}{
		"unknown field": {"gpu: 2\n", []string{"-f", "-"}, `unknown field "gpu"`},
		"not yaml":      {"gpus: [\n", []string{"-f", "-"}, "-:"},
		"no template":   {"", []string{"--template", "nope", "-p", "x", "--gpus", "1", "--", "true"}, `no template "nope"`},
		"no command":    {"", []string{"-p", "x", "--gpus", "1"}, "no command"},
		"no gpus":       {"", []string{"-p", "x", "--", "true"}, "--gpus"},
		"bad env":       {"", []string{"--env", "NOVALUE"}, "NAME=VALUE"},
		"bad time":      {"", []string{"--time", "1:2:3:4"}, "[D-]HH:MM:SS"},
		"zero time":     {"", []string{"-p", "x", "--gpus", "1", "--time", "0", "--", "true"}, "at least 1s"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := buildSpec(t, t.TempDir(), tc.stdin, tc.args...)
			var ee *ExitError
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.As(err, &ee) || ee.Code != ExitUsage {
				t.Errorf("build(%v) = %v, want a usage error with %q", tc.args, err, tc.want)
			}
		})
	}
}

func TestNewText(t *testing.T) {
	tests := map[string]struct {
		tail         string
		end, printed int64
		want         string
	}{
		"first fetch":   {"abc\n", 4, -1, "abc\n"},
		"nothing new":   {"abc\n", 4, 4, ""},
		"two new bytes": {"abcd", 10, 8, "cd"},
		"gap":           {"cd", 100, 10, "cd"},
	}
	for name, tc := range tests {
		if got := newText(tc.tail, tc.end, tc.printed); got != tc.want {
			t.Errorf("%s: newText(%q, %d, %d) = %q, want %q", name, tc.tail, tc.end, tc.printed, got, tc.want)
		}
	}
}

func TestCompletionListsVerbsAndFlags(t *testing.T) {
	var out bytes.Buffer
	err := Run(t.Context(), []string{"completion", "bash"}, Env{Getenv: func(string) string { return "" }, Stdout: &out, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"submit tasks show", `submit) opts="`, "-wait", `logs) opts="-f -server"`, "complete -o default -F _kashi kashi"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("completion bash lacks %q", want)
		}
	}
	if err := Run(t.Context(), []string{"completion", "tcsh"}, Env{Getenv: func(string) string { return "" }, Stdout: io.Discard, Stderr: io.Discard}); err == nil {
		t.Error("completion tcsh succeeded, want a usage error")
	}
}

// Completion for fish too, and values for all three: states after -s/-t/-state, projects
// after -p/-A/-project, task ids as show's, cancel's, ready's and logs' arguments; the bash
// script is shellcheck-clean (skipped without shellcheck) and fish reads its script (skipped
// without fish).
func TestCompletionFishAndValues(t *testing.T) {
	script := func(shell string) string {
		t.Helper()
		var out bytes.Buffer
		if err := Run(t.Context(), []string{"completion", shell}, Env{Getenv: func(string) string { return "" }, Stdout: &out, Stderr: io.Discard}); err != nil {
			t.Fatalf("completion %s: %v", shell, err)
		}
		return out.String()
	}
	bash, fish := script("bash"), script("fish")
	for _, want := range []string{"kashi __complete states", "kashi __complete projects", "kashi __complete tasks", "show|cancel|ready|logs)"} {
		if !strings.Contains(bash, want) {
			t.Errorf("completion bash lacks %q", want)
		}
	}
	for _, want := range []string{"__fish_use_subcommand -a '", "submit tasks show", "__fish_seen_subcommand_from submit' -o wait",
		"__fish_seen_subcommand_from show cancel ready logs' -a '(kashi __complete tasks", "(kashi __complete states", "(kashi __complete projects"} {
		if !strings.Contains(fish, want) {
			t.Errorf("completion fish lacks %q", want)
		}
	}
	check := func(tool string, args ...string) {
		if _, err := exec.LookPath(tool); err != nil {
			t.Logf("no %s: not checked", tool)
			return
		}
		if out, err := exec.Command(tool, args...).CombinedOutput(); err != nil {
			t.Errorf("%s %v: %v\n%s", tool, args, err, out)
		}
	}
	dir := t.TempDir()
	for name, body := range map[string]string{"kashi.bash": bash, "kashi.fish": fish} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check("shellcheck", "-s", "bash", filepath.Join(dir, "kashi.bash"))
	check("fish", "--no-execute", filepath.Join(dir, "kashi.fish"))

	var states bytes.Buffer
	if err := Run(t.Context(), []string{"__complete", "states"}, Env{Getenv: func(string) string { return "" }, Stdout: &states, Stderr: io.Discard}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Fields(states.String()); !slices.Contains(got, "queued") || !slices.Contains(got, "running") || len(got) != len(api.TaskStates()) {
		t.Errorf("__complete states = %v, want every task state", got)
	}
	var none bytes.Buffer
	if err := Run(t.Context(), []string{"__complete", "projects"}, Env{Getenv: func(string) string { return "" }, Stdout: &none, Stderr: io.Discard}); err != nil || none.Len() > 0 {
		t.Errorf("__complete projects without a server = %q, %v; want nothing and no error", none.String(), err)
	}
}

// TestSubmitTime: --time and --max-runtime read sbatch's [D-]HH:MM:SS, MM:SS and MM as well as
// Go durations; -A is the project.
func TestSubmitTime(t *testing.T) {
	for v, want := range map[string]int64{"6h": 6 * 3600, "90m": 5400, "30": 1800, "10:30": 630, "2:00:00": 7200,
		"1-00:00:00": 86400, "1-12": 36 * 3600, "1-2:30": 95400, "1-02:03:04": 93784} {
		for _, name := range []string{"--time", "--max-runtime"} {
			got, err := buildSpec(t, t.TempDir(), "", "-A", "nlp", "--gpus", "1", name, v, "--", "train")
			if err != nil || got.MaxRuntimeS != want || got.Project != "nlp" {
				t.Errorf("submit -A nlp %s %s = %d s, project %q, %v; want %d s, nlp", name, v, got.MaxRuntimeS, got.Project, err, want)
			}
		}
	}
}

// TestSubmitLeavesDataReadyToServer: without --data-ready the CLI sends none, so the
// server's one default applies (ready unless a data check is given).
func TestSubmitLeavesDataReadyToServer(t *testing.T) {
	got, err := buildSpec(t, t.TempDir(), "", "-p", "nlp", "--gpus", "1", "--", "train")
	if err != nil || got.DataReady != nil {
		t.Errorf("build() data_ready = %v, %v; want none", got.DataReady, err)
	}
}
