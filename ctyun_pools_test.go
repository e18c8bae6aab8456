package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/fleet/ctyun"
	"kashi/models"
	"kashi/models/modelstest"
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
			if _, ok := providers[ctyunProvider]; err != nil || ok != (tt.want.AK != "") {
				t.Errorf("fleetProviders has ctyun = %v, %v; want %v", ok, err, tt.want.AK != "")
			}
		})
	}
	if _, err := parseServe(nil, func(k string) string { return map[string]string{"CTYUN_AK": "a"}[k] }, io.Discard); err == nil {
		t.Errorf("parseServe with CTYUN_AK alone: no error")
	}
}

// TestCtyunPools: the provider reads a pool's cloud settings, and the zones of the ctyun
// pools, from the pools' configuration.
func TestCtyunPools(t *testing.T) {
	ctx := context.Background()
	s := modelstest.SQLite(t, models.Options{})
	now := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	save := func(name string, c models.PoolConfig) {
		t.Helper()
		c.Spec, c.GPUsPerNode = "A100-80G", 8
		if _, err := s.SavePoolConfig(ctx, name, c, "admin", "", now); err != nil {
			t.Fatal(err)
		}
	}
	gz := models.PoolConfig{Provider: "ctyun", Region: "cn-gz1", Zone: "cn-gz1-a", VPC: "vpc-1", Subnet: "sn-1",
		SecurityGroup: "sg-1", DiskType: "SAS", DiskGB: 200}
	save("a100", gz)
	save("a100-2", gz)
	save("h800", models.PoolConfig{Provider: "ctyun", Region: "cn-sh1"})
	save("local", models.PoolConfig{Provider: "exec", Region: "elsewhere"})
	p := ctyunPools{s}
	got, err := p.Settings(ctx, "a100")
	want := ctyun.PoolSettings{Region: "cn-gz1", Zone: "cn-gz1-a", VPC: "vpc-1", Subnet: "sn-1", SecurityGroup: "sg-1",
		DiskType: "SAS", DiskGB: 200}
	if err != nil || got != want {
		t.Errorf("Settings(a100) = %+v, %v; want %+v", got, err, want)
	}
	if _, err := p.Settings(ctx, "nope"); err == nil {
		t.Errorf("Settings(nope): no error")
	}
	zones, err := p.Zones(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]ctyun.Zone{{Region: "cn-gz1", Zone: "cn-gz1-a"}, {Region: "cn-sh1"}}, zones); diff != "" {
		t.Errorf("Zones (-want +got):\n%s", diff)
	}
}
