package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"kashi/fleet/ctyun"
	"kashi/fleet/ctyun/ctyunstore"
)

// TestCtyunCredentials: the key pair comes from CTYUN_AK and CTYUN_SK, else from the
// --ctyun-credentials file; without either there is no ctyun provider.
func TestCtyunCredentials(t *testing.T) {
	file := filepath.Join(t.TempDir(), "ctyun.env")
	if err := os.WriteFile(file, []byte("CTYUN_AK=file-ak\nCTYUN_SK=file-sk\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := map[string]struct {
		args []string
		env  map[string]string
		want ctyun.Credentials
	}{
		"none":         {nil, nil, ctyun.Credentials{}},
		"env":          {nil, map[string]string{"CTYUN_AK": "env-ak", "CTYUN_SK": "env-sk"}, ctyun.Credentials{AK: "env-ak", SK: "env-sk"}},
		"file":         {[]string{"--ctyun-credentials", file}, nil, ctyun.Credentials{AK: "file-ak", SK: "file-sk"}},
		"env and file": {[]string{"--ctyun-credentials", file}, map[string]string{"CTYUN_AK": "env-ak", "CTYUN_SK": "env-sk"}, ctyun.Credentials{AK: "env-ak", SK: "env-sk"}},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			cfg, err := parseServe(tt.args, func(k string) string { return tt.env[k] }, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.ctyun != tt.want {
				t.Errorf("parseServe(%v) key pair = %v, want %v", tt.args, cfg.ctyun, tt.want)
			}
			providers, err := fleetProviders(cfg, nil)
			if _, ok := providers[ctyunstore.Provider]; err != nil || ok != (tt.want.AK != "") {
				t.Errorf("fleetProviders has ctyun = %v, %v; want %v", ok, err, tt.want.AK != "")
			}
		})
	}
	if _, err := parseServe(nil, func(k string) string { return map[string]string{"CTYUN_AK": "a"}[k] }, io.Discard); err == nil {
		t.Errorf("parseServe with CTYUN_AK alone: no error")
	}
}
