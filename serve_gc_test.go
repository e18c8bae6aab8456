package main

import (
	"io"
	"strings"
	"testing"
)

// TestServeGCPercent: the server's GOGC is 100 unless given; GOGC in the environment wins
// over the default but not over the flag; out of range is an error naming the flag.
func TestServeGCPercent(t *testing.T) {
	parse := func(env map[string]string, args ...string) (serveConfig, error) {
		return parseServe(args, func(k string) string { return env[k] }, io.Discard)
	}
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want int
	}{
		{"default", nil, nil, 100},
		{"flag", nil, []string{"--gc-percent", "400"}, 400},
		{"KASHI_GC_PERCENT", map[string]string{"KASHI_GC_PERCENT": "300"}, nil, 300},
		{"GOGC decides", map[string]string{"GOGC": "150"}, nil, 0},
		{"the flag over GOGC", map[string]string{"GOGC": "150"}, []string{"--gc-percent", "400"}, 400},
	} {
		if c, err := parse(tc.env, tc.args...); err != nil || c.GCPercent != tc.want {
			t.Errorf("%s: GCPercent = %d, %v; want %d", tc.name, c.GCPercent, err, tc.want)
		}
	}
	for _, v := range []string{"10", "5000"} {
		if _, err := parse(nil, "--gc-percent", v); err == nil || !strings.Contains(err.Error(), "--gc-percent") {
			t.Errorf("--gc-percent %s = %v, want an error naming the flag", v, err)
		}
	}
}
