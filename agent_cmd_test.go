package main

import (
	"io"
	"strings"
	"testing"
	"time"
)

// TestAgentHealthGraceFlag: the health grace defaults to ten minutes, takes a duration and
// refuses one that is not positive, naming the flag.
func TestAgentHealthGraceFlag(t *testing.T) {
	parse := func(args ...string) (agentConfig, error) {
		return parseAgent(append([]string{"--join-token", "kj_x"}, args...), func(string) string { return "" }, io.Discard)
	}
	if c, err := parse(); err != nil || c.HealthGrace != 10*time.Minute {
		t.Errorf("default health grace = %v, %v; want 10m", c.HealthGrace, err)
	}
	if c, err := parse("--health-grace", "30m"); err != nil || c.HealthGrace != 30*time.Minute {
		t.Errorf("--health-grace 30m = %v, %v", c.HealthGrace, err)
	}
	if _, err := parse("--health-grace", "0s"); err == nil || !strings.Contains(err.Error(), "health-grace") {
		t.Errorf("--health-grace 0s = %v, want an error naming the flag", err)
	}
}

// TestAgentAssignmentsWaitFlag: the agent long-polls for 30 s by default, 0 turns it off
// (the agent never asks to wait), and a wait past the server's bound is refused by name.
func TestAgentAssignmentsWaitFlag(t *testing.T) {
	parse := func(args ...string) (agentConfig, error) {
		return parseAgent(append([]string{"--join-token", "kj_x"}, args...), func(string) string { return "" }, io.Discard)
	}
	if c, err := parse(); err != nil || c.agentWait() != 30*time.Second {
		t.Errorf("default wait = %v, %v; want 30s", c.agentWait(), err)
	}
	if c, err := parse("--assignments-wait", "0s"); err != nil || c.agentWait() >= 0 {
		t.Errorf("--assignments-wait 0s = %v, %v; want no wait asked", c.agentWait(), err)
	}
	for _, bad := range []string{"-1s", "61s"} {
		if _, err := parse("--assignments-wait", bad); err == nil || !strings.Contains(err.Error(), "assignments-wait") {
			t.Errorf("--assignments-wait %s = %v, want an error naming the flag", bad, err)
		}
	}
}
