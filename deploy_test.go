package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// unitLines reads deploy/kashi-agent.service's settings as key → values.
func unitLines(t *testing.T) map[string][]string {
	t.Helper()
	f, err := os.Open("deploy/kashi-agent.service")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok && !strings.HasPrefix(k, "#") {
			out[k] = append(out[k], v)
		}
	}
	return out
}

// envFile reads KEY=value lines.
func envFile(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for line := range strings.Lines(string(b)) {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), "="); ok && !strings.HasPrefix(k, "#") {
			out[k] = v
		}
	}
	return out
}

func TestSystemdUnitStartsTheAgent(t *testing.T) {
	unit := unitLines(t)
	for key, want := range map[string]string{"Restart": "always", "KillMode": "process",
		"StateDirectory": "kashi-agent", "EnvironmentFile": "/etc/kashi/agent.env"} {
		if got := unit[key]; len(got) != 1 || got[0] != want {
			t.Errorf("unit %s = %q, want %q", key, got, want)
		}
	}
	argv := strings.Fields(unit["ExecStart"][0])
	if argv[0] != "/usr/local/bin/kashi" || argv[1] != "agent" {
		t.Fatalf("ExecStart = %q, want kashi agent", argv)
	}
	env := envFile(t, "deploy/kashi-agent.env.example")
	c, err := parseAgent(argv[2:], func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatalf("the unit's flags with the example env file: %v", err)
	}
	if c.StateDir != "/var/lib/kashi-agent" || c.Server != env["KASHI_SERVER"] || c.JoinToken != env["KASHI_JOIN_TOKEN"] {
		t.Errorf("config = %+v, want the state directory and the env file's server and token", c)
	}
}

func TestCloudInitCarriesUnitAndSettings(t *testing.T) {
	cmd := exec.Command("deploy/exec-example/render-cloud-init.sh", "kashi-k1")
	cmd.Env = append(os.Environ(), "KASHI_SERVER=https://kashi.example.com", "KASHI_JOIN_TOKEN=tok&en|x",
		"KASHI_POOL=a100", "KASHI_AGENT_URL=https://dl.example.com/kashi")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("render-cloud-init.sh: %v", err)
	}
	got := string(out)
	for _, want := range []string{"#cloud-config", "KASHI_JOIN_TOKEN=tok&en|x", "KASHI_MACHINE_ID=kashi-k1",
		"      KillMode=process", "https://dl.example.com/kashi", "enable, --now, kashi-agent"} {
		if !strings.Contains(got, want) {
			t.Errorf("cloud-init lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "@@") {
		t.Errorf("cloud-init has unfilled fields:\n%s", got)
	}
}
