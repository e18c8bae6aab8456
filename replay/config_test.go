package replay

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/scheduler"
)

func TestParseConfig(t *testing.T) {
	in := `
scale_interval: 1m
pools:
  - name: a100
    spec: A100-80G
    gpus_per_node: 8
    nodes: 4
    rate_fen: 1200
  - name: h100
    spec: H100
    gpus_per_node: 8
    any_spec: true
    boot_time: 5m
    scale:
      max_nodes: 16
      cooldown_up: 5m
      memory_high_pct: 70
`
	got, err := ParseConfig(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{ScaleInterval: time.Minute, Pools: []Pool{
		{Name: "a100", Spec: "A100-80G", GPUsPerNode: 8, Nodes: 4, RateFen: 1200},
		{Name: "h100", Spec: "H100", GPUsPerNode: 8, AnySpec: true, BootTime: 5 * time.Minute,
			Scale: &ScaleConfig{MaxNodes: 16, CooldownUp: 5 * time.Minute, MemoryHighPct: 70}},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseConfig (-want +got):\n%s", diff)
	}
	pol := got.Pools[1].Scale.Policy()
	if pol.CooldownAfterUp != 5*time.Minute || pol.CooldownAfterDown != 10*time.Minute || pol.MemoryHighPct != 70 || pol.Step != 1 {
		t.Errorf("Policy() = %+v, want the given fields and production defaults", pol)
	}
}

// onePool is a valid fleet, for the quotas' cases.
const onePool = "pools:\n  - {name: a, gpus_per_node: 8, nodes: 1}\n"

// TestParseConfigQuotas: quotas read as Decide's quota states, by project.
func TestParseConfigQuotas(t *testing.T) {
	c, err := ParseConfig(strings.NewReader(onePool + "quotas:\n  - {project: v, spec: A, max_gpus: 4, guaranteed_gpus: 2}\n" +
		"  - {project: v, max_gpus: 6}\n  - {project: s, max_gpus: 8, overflow: true}\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]scheduler.QuotaState{
		"v": {MaxGPUs: 6, MaxGPUsBySpec: map[string]int{"A": 4}, Guaranteed: map[string]int{"A": 2}},
		"s": {MaxGPUs: 8, Overflow: true},
	}
	if diff := cmp.Diff(want, c.quotaStates()); diff != "" {
		t.Errorf("quotaStates (-want +got):\n%s", diff)
	}
}

func TestParseConfigRejects(t *testing.T) {
	tests := map[string]struct{ in, want string }{
		"not yaml":      {"pools: [", "replay: config"},
		"unknown key":   {"pools:\n  - name: a\n    gpus_per_node: 8\n    nodes: 1\n    colour: red\n", "colour"},
		"no pools":      {"scale_interval: 1m\n", "no pools"},
		"no name":       {"pools:\n  - gpus_per_node: 8\n    nodes: 1\n", "name is empty"},
		"twice":         {"pools:\n  - {name: a, gpus_per_node: 8, nodes: 1}\n  - {name: a, gpus_per_node: 8, nodes: 1}\n", "used twice"},
		"no gpus":       {"pools:\n  - {name: a, nodes: 1}\n", "gpus_per_node"},
		"fixed empty":   {"pools:\n  - {name: a, gpus_per_node: 8}\n", "nodes ≥ 1"},
		"min over max":  {"pools:\n  - {name: a, gpus_per_node: 8, scale: {min_nodes: 3, max_nodes: 2}}\n", "min_nodes"},
		"nodes+scale":   {"pools:\n  - {name: a, gpus_per_node: 8, nodes: 2, scale: {max_nodes: 2}}\n", "drop nodes"},
		"neg cooldown":  {"pools:\n  - {name: a, gpus_per_node: 8, scale: {max_nodes: 2, cooldown_up: -1m}}\n", "cooldown_up"},
		"bad duration":  {"pools:\n  - {name: a, gpus_per_node: 8, scale: {max_nodes: 2, cooldown_up: soon}}\n", "replay: config"},
		"negative rate": {"pools:\n  - {name: a, gpus_per_node: 8, nodes: 1, rate_fen: -5}\n", "rate_fen"},
		"quota project": {onePool + "quotas:\n  - {max_gpus: 4}\n", "project is empty"},
		"quota twice":   {onePool + "quotas:\n  - {project: v, max_gpus: 4}\n  - {project: v, max_gpus: 8}\n", "given twice"},
		"quota zero":    {onePool + "quotas:\n  - {project: v}\n", "max_gpus ≥ 1"},
		"quota guarantee over": {onePool + "quotas:\n  - {project: v, spec: A, max_gpus: 4, guaranteed_gpus: 5}\n",
			"guaranteed_gpus ≤ max_gpus"},
		"quota guarantee all": {onePool + "quotas:\n  - {project: v, max_gpus: 4, guaranteed_gpus: 2}\n", "per spec"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if _, err := ParseConfig(strings.NewReader(tc.in)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ParseConfig = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestParseSweep(t *testing.T) {
	ps, err := ParseSweep("scale_up_mem=0.7,0.8,0.9; cooldown=5m,10m")
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, s := range Combinations(ps) {
		got = append(got, s.String())
	}
	want := []string{
		"scale_up_mem=0.7 cooldown=5m", "scale_up_mem=0.7 cooldown=10m",
		"scale_up_mem=0.8 cooldown=5m", "scale_up_mem=0.8 cooldown=10m",
		"scale_up_mem=0.9 cooldown=5m", "scale_up_mem=0.9 cooldown=10m",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Combinations (-want +got):\n%s", diff)
	}
	opt, err := Combinations(ps)[3].Apply(Options{Fleet: elasticFleet()})
	if err != nil {
		t.Fatal(err)
	}
	sc := opt.Fleet.Pools[0].Scale
	if sc.MemoryHighPct != 80 || sc.CooldownUp != 10*time.Minute || sc.CooldownDown != 10*time.Minute {
		t.Errorf("Apply = %+v", sc)
	}
	if base := elasticFleet(); base.Pools[0].Scale.MemoryHighPct != 0 {
		t.Error("Apply changed its base")
	}
}

func TestSweepRejects(t *testing.T) {
	parse := map[string]string{
		"":                   "no settings",
		"colour=red":         "unknown setting",
		"cooldown":           "not name=v1,v2",
		"cooldown=":          "no values",
		"step=1;step=2":      "given twice",
		"step=" + manyOnes(): "combinations",
	}
	for in, want := range parse {
		if _, err := ParseSweep(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSweep(%.30q) = %v, want an error containing %q", in, err, want)
		}
	}
	apply := map[string]struct {
		setting Setting
		fleet   Config
		want    string
	}{
		"fraction":     {Setting{{"scale_up_mem", "80"}}, elasticFleet(), "fraction"},
		"duration":     {Setting{{"cooldown", "soon"}}, elasticFleet(), "duration"},
		"number":       {Setting{{"step", "-1"}}, elasticFleet(), "whole number"},
		"no elastic":   {Setting{{"cooldown", "5m"}}, FixedFleet(2, 8), "elastic pool"},
		"no fixed":     {Setting{{"nodes", "4"}}, elasticFleet(), "no fixed pool"},
		"invalid pool": {Setting{{"max_nodes", "0"}}, elasticFleet(), "max_nodes"},
	}
	for name, tc := range apply {
		if _, err := tc.setting.Apply(Options{Fleet: tc.fleet}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Apply = %v, want an error containing %q", name, err, tc.want)
		}
	}
}

func manyOnes() string { return strings.TrimSuffix(strings.Repeat("1,", 1001), ",") }
