package main

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"kashi/agent"
)

// unitLines reads a systemd unit's settings as key → values, in order. Its lines may not be
// continued with a backslash, so that what is read here is what systemd reads.
func unitLines(t *testing.T, path string) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for line := range strings.Lines(string(b)) {
		line = strings.TrimSpace(line)
		if strings.HasSuffix(line, `\`) {
			t.Fatalf("%s: a continued line: %q", path, line)
		}
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(k, "#") && !strings.HasPrefix(k, ";") {
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

// envExamples reads an env file's settings with its commented examples ("# KASHI_X=…")
// taken as set, after the lines set: what an admin may uncomment must be right too.
func envExamples(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := envFile(t, path)
	for line := range strings.Lines(string(b)) {
		line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "#"))
		if k, v, ok := strings.Cut(line, "="); ok && envKey.MatchString(k) {
			out[k] = v
		}
	}
	return out
}

// envKey is a setting's name in an env file.
var envKey = regexp.MustCompile(`^KASHI_[A-Z0-9_]+$`)

// secretFiles stands in for the files under /etc/kashi an env file names: each path is
// mapped to a file in a test folder holding what such a file holds.
func secretFiles(t *testing.T, env map[string]string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	out := map[string]string{}
	for k, v := range env {
		if !strings.HasPrefix(v, "/etc/kashi/") {
			out[k] = v
			continue
		}
		content := "kj_0123456789abcdef0123456789abcdef" // a token or a password
		switch k {
		case "KASHI_SECRET_KEY_FILE":
			content = base64.StdEncoding.EncodeToString(make([]byte, 32))
		case "KASHI_CTYUN_CREDENTIALS":
			content = "CTYUN_AK=ak\nCTYUN_SK=sk\n"
		case "KASHI_NOTIFY_FILE":
			content = "webhook:https://hooks.example.com/kashi"
		}
		path := filepath.Join(dir, k)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		out[k] = path
	}
	return out
}

// cmdParser is a command's flag parser: parseServe or parseAgent.
type cmdParser[C any] func(args []string, getenv func(string) string, stderr io.Writer) (C, error)

// flagOf is the flag an env file's KASHI_ setting sets.
func flagOf(key string) string {
	return strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(key, "KASHI_"), "_", "-"))
}

// inlineSecret matches values that carry a secret themselves: a password in a DSN or URL, a
// token in a query or a fragment.
var inlineSecret = regexp.MustCompile(`(?i)(password|passwd|secret|token|key)=|://[^/@\s]*:[^/@\s]*@`)

// checkEnvFile parses an env file, with its commented examples set, against a command's real
// flags: as its environment and as command-line flags (so that a name no flag has fails).
// No setting may hold a secret: a flag with a --NAME-file twin is set through the file, and
// no name or value looks like a secret.
func checkEnvFile[C any](t *testing.T, path string, parse cmdParser[C]) C {
	t.Helper()
	env := secretFiles(t, envExamples(t, path))
	c, err := parse(nil, func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatalf("%s as the environment: %v", path, err)
	}
	none := func(string) string { return "" }
	var args []string
	for k, v := range env {
		args = append(args, "--"+flagOf(k)+"="+v)
	}
	if _, err := parse(args, none, io.Discard); err != nil {
		t.Errorf("%s as flags: %v", path, err)
	}
	for k, v := range envExamples(t, path) {
		name := strings.TrimPrefix(k, "KASHI_")
		if (strings.Contains(name, "TOKEN") || strings.Contains(name, "PASSWORD") || strings.Contains(name, "SECRET")) &&
			!strings.HasSuffix(name, "_FILE") {
			t.Errorf("%s: %s holds a secret: name its file (%s_FILE)", path, k, k)
		}
		if _, err := parse([]string{"--" + flagOf(k) + "-file=" + filepath.Join(t.TempDir(), "none")}, none, io.Discard); err == nil ||
			!strings.Contains(err.Error(), "not defined") {
			t.Errorf("%s: %s is a secret flag: set %s_FILE instead", path, k, k)
		}
		if m := inlineSecret.FindString(v); m != "" {
			t.Errorf("%s: %s=%s holds a secret (%s)", path, k, v, m)
		}
	}
	return c
}

// checkSettings fails for each setting of want the unit lacks or sets otherwise.
func checkSettings(t *testing.T, path string, unit map[string][]string, want map[string]string) {
	t.Helper()
	for key, v := range want {
		if got := unit[key]; len(got) != 1 || got[0] != v {
			t.Errorf("%s: %s = %q, want %q", path, key, got, v)
		}
	}
}

// checkExecStart parses the unit's ExecStart with the env file's settings (examples set)
// against the command's real flags, and returns the configuration.
func checkExecStart[C any](t *testing.T, path string, unit map[string][]string, command, env string, parse cmdParser[C]) C {
	t.Helper()
	if got := unit["EnvironmentFile"]; len(got) != 1 || got[0] != "/etc/kashi/"+strings.TrimSuffix(strings.TrimPrefix(filepath.Base(env), "kashi-"), ".example") {
		t.Errorf("%s: EnvironmentFile = %q, want /etc/kashi/ and the name of %s", path, got, env)
	}
	if len(unit["ExecStart"]) != 1 {
		t.Fatalf("%s: ExecStart = %q, want one", path, unit["ExecStart"])
	}
	argv := strings.Fields(unit["ExecStart"][0])
	if len(argv) < 2 || argv[0] != "/usr/local/bin/kashi" || argv[1] != command {
		t.Fatalf("%s: ExecStart = %q, want /usr/local/bin/kashi %s", path, argv, command)
	}
	checkEnvFile(t, env, parse)
	vars := secretFiles(t, envExamples(t, env))
	c, err := parse(argv[2:], func(k string) string { return vars[k] }, io.Discard)
	if err != nil {
		t.Fatalf("%s: the unit's flags with %s: %v", path, env, err)
	}
	return c
}

// TestServerUnitHardened: deploy/kashi.service runs the server as its own user with no
// capability, in a read-only system but for its state directory, which holds the database;
// its flags and its env file's settings are flags of kashi serve, and the env file holds no
// secret.
func TestServerUnitHardened(t *testing.T) {
	const path = "deploy/kashi.service"
	unit := unitLines(t, path)
	checkSettings(t, path, unit, map[string]string{
		"User": "kashi", "Group": "kashi", "StateDirectory": "kashi", "StateDirectoryMode": "0700",
		"WorkingDirectory": "/var/lib/kashi", "UMask": "0077", "Restart": "on-failure",
		"CapabilityBoundingSet": "", "AmbientCapabilities": "", "NoNewPrivileges": "yes",
		"ProtectSystem": "strict", "ProtectHome": "yes", "PrivateTmp": "yes", "PrivateDevices": "yes",
		"DevicePolicy": "closed", "PrivateMounts": "yes", "PrivateUsers": "yes", "ProtectProc": "invisible",
		"ProtectKernelTunables": "yes", "ProtectKernelModules": "yes", "ProtectKernelLogs": "yes",
		"ProtectControlGroups": "yes", "ProtectClock": "yes", "ProtectHostname": "yes", "RemoveIPC": "yes",
		"RestrictAddressFamilies": "AF_UNIX AF_INET AF_INET6", "RestrictNamespaces": "yes",
		"SystemCallArchitectures": "native", "SystemCallErrorNumber": "EPERM",
		"MemoryDenyWriteExecute": "yes", "LockPersonality": "yes", "RestrictRealtime": "yes",
		"RestrictSUIDSGID": "yes",
	})
	if got, want := unit["SystemCallFilter"], []string{"@system-service", "~@privileged"}; !slices.Equal(got, want) {
		t.Errorf("%s: SystemCallFilter = %q, want %q", path, got, want)
	}
	if rw := unit["ReadWritePaths"]; len(rw) > 0 {
		t.Errorf("%s: ReadWritePaths = %q: the server writes its state directory only", path, rw)
	}
	c := checkExecStart(t, path, unit, "serve", "deploy/kashi.env", parseServe)
	db := envFile(t, "deploy/kashi.env")["KASHI_DB"]
	if filepath.Dir(db) != "/var/lib/"+unit["StateDirectory"][0] {
		t.Errorf("KASHI_DB = %q, want a file of the state directory /var/lib/%s", db, unit["StateDirectory"][0])
	}
	if c.JoinToken == "" {
		t.Error("the env file gives the server no join token")
	}
}

// TestAgentUnitHardened: deploy/kashi-agent.service keeps only the capabilities that starting
// tasks as their owners takes, each line with its reason, and the sandbox its tasks share.
func TestAgentUnitHardened(t *testing.T) {
	const path = "deploy/kashi-agent.service"
	unit := unitLines(t, path)
	checkSettings(t, path, unit, map[string]string{
		"Restart": "always", "KillMode": "process", "StateDirectory": "kashi-agent", "StateDirectoryMode": "0711",
		"Delegate": "yes", "DelegateSubgroup": "agent", "NoNewPrivileges": "yes", "RestrictSUIDSGID": "yes",
		"ProtectSystem": "strict", "ProtectHome": "read-only", "ReadWritePaths": "/tmp /var/tmp", "PrivateMounts": "yes",
		"DevicePolicy": "closed", "ProtectKernelTunables": "yes", "ProtectKernelModules": "yes",
		"ProtectKernelLogs": "yes", "ProtectClock": "yes", "ProtectHostname": "yes",
		"RestrictAddressFamilies": "AF_UNIX AF_INET AF_INET6 AF_NETLINK", "RestrictNamespaces": "yes",
		"SystemCallArchitectures": "native", "SystemCallFilter": "@system-service @debug",
		"SystemCallErrorNumber": "EPERM", "LockPersonality": "yes", "RestrictRealtime": "yes", "UMask": "0077",
	})
	for _, key := range []string{"User", "DynamicUser", "AmbientCapabilities", "ProtectControlGroups", "PrivateDevices", "PrivateTmp"} {
		if v, ok := unit[key]; ok {
			t.Errorf("%s: %s = %q, which the agent's job rules out (see its comments)", path, key, v)
		}
	}
	if !slices.Contains(unit["DeviceAllow"], "char-nvidia* rw") {
		t.Errorf("%s: DeviceAllow = %q, want the GPUs (char-nvidia* rw)", path, unit["DeviceAllow"])
	}
	want := []string{"CAP_SETUID", "CAP_SETGID", "CAP_CHOWN", "CAP_KILL", "CAP_DAC_OVERRIDE"}
	if got := unit["CapabilityBoundingSet"]; !slices.Equal(got, want) {
		t.Errorf("%s: CapabilityBoundingSet = %q, want %q, one a line", path, got, want)
	}
	b, _ := os.ReadFile(path)
	lines := strings.Split(string(b), "\n")
	for i, line := range lines {
		if strings.HasPrefix(line, "CapabilityBoundingSet=") && (i == 0 || !strings.HasPrefix(lines[i-1], "# ")) {
			t.Errorf("%s: %q has no comment saying why", path, line)
		}
	}

	c := checkExecStart(t, path, unit, "agent", "deploy/kashi-agent.env.example", parseAgent)
	if c.StateDir != "/var/lib/"+unit["StateDirectory"][0] || c.JoinToken == "" {
		t.Errorf("agent config = %+v, want the state directory and the env file's join token", c)
	}
	// The tasks' groups go under the group the unit delegates, where systemd starts the
	// agent in its leaf agent/ (agent's TestFindOwnCgroupV2 and TestCgroupV2Delegated).
	if c.CgroupParent != agent.AutoCgroup {
		t.Errorf("%s: --cgroup-parent %q, want %q: the group the unit delegates", path, c.CgroupParent, agent.AutoCgroup)
	}
}

// recordedExposure reads SECURITY.md's table of the units' exposure: unit file → level.
func recordedExposure(t *testing.T) map[string]float64 {
	t.Helper()
	b, err := os.ReadFile("SECURITY.md")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, m := range regexp.MustCompile("(?m)^\\| `(deploy/[a-z-]+\\.service)` \\| ([0-9]+\\.[0-9]) ").FindAllStringSubmatch(string(b), -1) {
		out[m[1]], _ = strconv.ParseFloat(m[2], 64)
	}
	return out
}

// newerSettings are the settings the units use that older versions of systemd ignore (with a
// warning), with the version that has each: the units say what happens without them.
var newerSettings = map[string]int{"DelegateSubgroup": 254}

// newerKeys matches systemd-analyze verify's warning about a setting it does not know.
var newerKeys = regexp.MustCompile(`(?m)^\S+:[0-9]+: Unknown key '([A-Za-z]+)' in section \[Service\], ignoring\.\n`)

// TestUnitsExposure: systemd-analyze finds nothing wrong in either unit, and their exposure
// stays at or below what SECURITY.md records (the server's at or below 2.0). A systemd older
// than a setting (newerSettings) may only warn that it ignores it. CI installs systemd;
// elsewhere the test is skipped without systemd-analyze.
func TestUnitsExposure(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("no systemd-analyze")
	}
	recorded := recordedExposure(t)
	if len(recorded) != 2 || recorded["deploy/kashi.service"] > 2.0 {
		t.Fatalf("SECURITY.md records %v, want both units, the server's at or below 2.0", recorded)
	}
	level := regexp.MustCompile(`Overall exposure level for [a-z-]+\.service: ([0-9]+\.[0-9]) `)
	v, _ := exec.Command(analyze, "--version").Output()
	m := regexp.MustCompile(`^systemd ([0-9]+)`).FindSubmatch(v)
	if m == nil {
		t.Fatalf("systemd-analyze --version: %q", v)
	}
	version, _ := strconv.Atoi(string(m[1]))
	for path, max := range recorded {
		out, err := exec.Command(analyze, "security", "--offline=true", path).Output()
		m := level.FindSubmatch(out)
		if err != nil || m == nil {
			t.Fatalf("systemd-analyze security %s: %v\n%s", path, err, out)
		}
		if got, _ := strconv.ParseFloat(string(m[1]), 64); got > max {
			t.Errorf("%s: exposure %.1f, SECURITY.md records %.1f:\n%s", path, got, max, out)
		}

		// verify wants the programs to exist: a copy of the unit runs true instead.
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		copied := filepath.Join(t.TempDir(), filepath.Base(path))
		text := strings.ReplaceAll(string(b), "ExecStart=/usr/local/bin/kashi ", "ExecStart=/bin/true ")
		if err := os.WriteFile(copied, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err = exec.Command(analyze, "verify", copied).CombinedOutput()
		if out = newerKeys.ReplaceAllFunc(out, func(line []byte) []byte {
			if since := newerSettings[string(newerKeys.FindSubmatch(line)[1])]; since > version {
				return nil // a setting of a newer systemd, which this one ignores as the unit says
			}
			return line
		}); err != nil || len(out) > 0 {
			t.Errorf("systemd-analyze verify %s: %v\n%s", path, err, out)
		}
	}
}

func TestCloudInitCarriesUnitAndSettings(t *testing.T) {
	cmd := exec.Command("deploy/exec-example/render-cloud-init.sh", "kashi-k1")
	cmd.Env = append(os.Environ(), "KASHI_SERVER=https://kashi.example.com", "KASHI_JOIN_TOKEN=tok&en|x",
		"KASHI_POOL=a100", "KASHI_AGENT_URL=https://dl.example.com/kashi", "KASHI_AGENT_SHA256="+strings.Repeat("ab", 32))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("render-cloud-init.sh: %v", err)
	}
	got := string(out)
	for _, want := range []string{"#cloud-config", "path: /etc/kashi/join-token\n    permissions: \"0600\"\n    content: |\n      tok&en|x\n",
		"KASHI_JOIN_TOKEN_FILE=/etc/kashi/join-token", "KASHI_MACHINE_ID=kashi-k1",
		"      KillMode=process", "https://dl.example.com/kashi", "echo '" + strings.Repeat("ab", 32) + "  ", "enable, --now, kashi-agent"} {
		if !strings.Contains(got, want) {
			t.Errorf("cloud-init lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "@@") {
		t.Errorf("cloud-init has unfilled fields:\n%s", got)
	}
}

// renderCloudInit renders deploy/cloud-init.yaml with the agent at url whose SHA-256 is sum.
func renderCloudInit(t *testing.T, url, sum string) (string, error) {
	t.Helper()
	cmd := exec.Command("deploy/exec-example/render-cloud-init.sh", "kashi-k1")
	cmd.Env = append(os.Environ(), "KASHI_SERVER=https://kashi.example.com", "KASHI_JOIN_TOKEN=tok",
		"KASHI_POOL=a100", "KASHI_AGENT_URL="+url, "KASHI_AGENT_SHA256="+sum)
	out, err := cmd.Output()
	return string(out), err
}

// A new machine installs the agent it downloads only when the download's SHA-256 is the one
// rendered into its cloud-init: the runcmd's download step, run as written (into a folder
// of the test's instead of /usr/local/bin), installs the right file and refuses a changed
// one. A checksum that is not 64 hex digits is refused when rendering.
func TestCloudInitChecksAgentDownload(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl")
	}
	dir := t.TempDir()
	agent := filepath.Join(dir, "kashi-build")
	if err := os.WriteFile(agent, []byte("#!/bin/sh\necho kashi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	good := fmt.Sprintf("%x", sha256.Sum256([]byte("#!/bin/sh\necho kashi\n")))
	bad := fmt.Sprintf("%x", sha256.Sum256([]byte("something else")))
	download := regexp.MustCompile(`(?m)^  - \[sh, -c, "(curl [^"]*)"\]$`)
	for name, tc := range map[string]struct {
		sum       string
		installed bool
	}{"matching checksum": {good, true}, "changed download": {bad, false}} {
		t.Run(name, func(t *testing.T) {
			out, err := renderCloudInit(t, "file://"+agent, tc.sum)
			if err != nil {
				t.Fatalf("render-cloud-init.sh: %v", err)
			}
			m := download.FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("cloud-init has no download step:\n%s", out)
			}
			bin := t.TempDir()
			step := strings.ReplaceAll(m[1], "/usr/local/bin/", bin+"/")
			runErr := exec.Command("sh", "-c", step).Run()
			_, statErr := os.Stat(filepath.Join(bin, "kashi"))
			if installed := statErr == nil; installed != tc.installed || (runErr == nil) != tc.installed {
				t.Errorf("download step with %s: installed %v (err %v), want %v", name, installed, runErr, tc.installed)
			}
		})
	}
	for _, sum := range []string{"", "abc", strings.Repeat("AB", 32), strings.Repeat("ab", 32) + "'; reboot; '"} {
		if _, err := renderCloudInit(t, "https://dl.example.com/kashi", sum); err == nil {
			t.Errorf("render-cloud-init.sh with KASHI_AGENT_SHA256=%q succeeded, want it refused", sum)
		}
	}
}

// The scripts people run and CI's own are shellcheck-clean (skipped without shellcheck; CI
// installs it).
func TestScriptsShellcheckClean(t *testing.T) {
	sc, err := exec.LookPath("shellcheck")
	if err != nil {
		t.Skip("no shellcheck")
	}
	scripts, err := filepath.Glob("scripts/*.sh")
	if err != nil {
		t.Fatal(err)
	}
	more, _ := filepath.Glob("deploy/exec-example/*.sh")
	scripts = append(append(scripts, more...), ".ci/run")
	if out, err := exec.Command(sc, scripts...).CombinedOutput(); err != nil {
		t.Errorf("shellcheck %v: %v\n%s", scripts, err, out)
	}
}
