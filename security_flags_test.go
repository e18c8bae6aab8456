package main

import (
	"encoding/base64"
	"io"
	"log/slog"
	"os"
	"path/filepath"
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
