package ctyun

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLoadCredentials(t *testing.T) {
	tests := map[string]struct {
		content string
		mode    os.FileMode
		want    Credentials
		err     string
	}{
		"pair":           {"# ctyun\nCTYUN_AK = ak1\n\nCTYUN_SK=sk=with=equals\n", 0o600, Credentials{AK: "ak1", SK: "sk=with=equals"}, ""},
		"read-only":      {"CTYUN_AK=ak1\nCTYUN_SK=sk1\n", 0o400, Credentials{AK: "ak1", SK: "sk1"}, ""},
		"group readable": {"CTYUN_AK=ak1\nCTYUN_SK=sk1\n", 0o640, Credentials{}, "readable by others"},
		"one key":        {"CTYUN_AK=ak1\n", 0o600, Credentials{}, "set both"},
		"empty":          {"\n", 0o600, Credentials{}, "has no"},
		"not a pair":     {"sk-secret-value\n", 0o600, Credentials{}, "not NAME=value"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "ctyun.env")
			if err := os.WriteFile(path, []byte(tt.content), tt.mode); err != nil {
				t.Fatal(err)
			}
			got, err := LoadCredentials(path)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || strings.Contains(err.Error(), "secret") {
					t.Fatalf("LoadCredentials = %v, want an error saying %q without the secret", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("LoadCredentials (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCredentialsFromEnv(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if _, ok, err := CredentialsFromEnv(env(nil)); ok || err != nil {
		t.Errorf("CredentialsFromEnv(none) = %v, %v; want not set", ok, err)
	}
	if _, _, err := CredentialsFromEnv(env(map[string]string{EnvAK: "ak"})); err == nil {
		t.Errorf("CredentialsFromEnv(AK only) = nil error")
	}
	c, ok, err := CredentialsFromEnv(env(map[string]string{EnvAK: "ak", EnvSK: "sk"}))
	if !ok || err != nil || c != (Credentials{AK: "ak", SK: "sk"}) {
		t.Errorf("CredentialsFromEnv(both) = %v, %v, %v", c, ok, err)
	}
}
