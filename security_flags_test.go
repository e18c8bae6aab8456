package main

import (
	"encoding/base64"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/models/modelstest"
)

func TestParseServeSecurityFlags(t *testing.T) {
	env := map[string]string{"KASHI_DATA_CHECK_ALLOW_HOST": "minio.internal, 10.0.0.5"}
	cfg, err := parseServe([]string{"--data-root", "/data", "--data-root", "/scratch"}, func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"/data", "/scratch"}, cfg.DataRoots); diff != "" {
		t.Errorf("--data-root (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"minio.internal", "10.0.0.5"}, cfg.DataCheckAllowHosts); diff != "" {
		t.Errorf("KASHI_DATA_CHECK_ALLOW_HOST (-want +got):\n%s", diff)
	}
	cfg, _ = parseServe([]string{"--data-check-allow-host", "x"}, func(k string) string { return env[k] }, io.Discard)
	if diff := cmp.Diff([]string{"x"}, cfg.DataCheckAllowHosts); diff != "" {
		t.Errorf("the flag over the environment (-want +got):\n%s", diff)
	}
}

// TestSecretKeyFile: with SQLite and no --secret-key, a 0600 key file is made beside the
// database and read again on the next start; a bad key is refused.
func TestSecretKeyFile(t *testing.T) {
	dir := t.TempDir()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	store := modelstest.SQLite(t, models.Options{})
	cfg := serveConfig{DB: filepath.Join(dir, "kashi.db")}
	if err := loadSecretKey(store, cfg, log); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, secretKeyFile)
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file = %v, %v; want mode 0600", fi, err)
	}
	first, _ := os.ReadFile(path)
	if err := loadSecretKey(store, cfg, log); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(path); string(again) != string(first) {
		t.Error("the key file changed on the second start")
	}
	cfg.SecretKey = base64.StdEncoding.EncodeToString([]byte("short"))
	if err := loadSecretKey(store, cfg, log); err == nil {
		t.Error("a 5-byte --secret-key was accepted")
	}
}

// TestSecretsFromFiles: every secret flag of serve and agent may name a file instead
// (--NAME-file or KASHI_NAME_FILE), so that no env file or command line holds the secret;
// surrounding white space is dropped, and an empty, missing or too large file or both forms at
// once are refused, naming the flag.
func TestSecretsFromFiles(t *testing.T) {
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	env := map[string]string{
		"KASHI_JOIN_TOKEN_FILE":     file("join-token", "kj_0123456789abcdef\n"),
		"KASHI_ADMIN_PASSWORD_FILE": file("admin-password", "  correct horse \n"),
		"KASHI_SECRET_KEY_FILE":     file("secret-key", base64.StdEncoding.EncodeToString(make([]byte, 32))+"\n"),
		"KASHI_NOTIFY_FILE":         file("notify", "wecom:https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=K\n"),
	}
	getenv := func(k string) string { return env[k] }
	c, err := parseServe(nil, getenv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{c.JoinToken, c.AdminPassword, c.SecretKey, c.Notify}
	want := []string{"kj_0123456789abcdef", "correct horse", base64.StdEncoding.EncodeToString(make([]byte, 32)),
		"wecom:https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=K"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("serve's secrets from files (-want +got):\n%s", diff)
	}
	a, err := parseAgent([]string{"--join-token-file", env["KASHI_JOIN_TOKEN_FILE"]}, func(string) string { return "" }, io.Discard)
	if err != nil || a.JoinToken != "kj_0123456789abcdef" {
		t.Errorf("agent --join-token-file: %q, %v", a.JoinToken, err)
	}

	big := file("big", strings.Repeat("x", maxSecretFile+1))
	for name, args := range map[string][]string{
		"--join-token-file: open " + filepath.Join(dir, "missing"): {"--join-token-file", filepath.Join(dir, "missing")},
		"--join-token-file: " + file("empty", " \n") + " is empty": {"--join-token-file", filepath.Join(dir, "empty")},
		"--notify-file: " + big:                             {"--notify-file", big},
		"--join-token and --join-token-file are both given": {"--join-token", "inline", "--join-token-file", env["KASHI_JOIN_TOKEN_FILE"]},
	} {
		_, err := parseServe(args, func(string) string { return "" }, io.Discard)
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("parseServe(%q) = %v, want an error with %q", args, err, name)
		}
	}
}
