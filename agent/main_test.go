package agent

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary play the supervisor (kashi-supervise <dir>) and a whole agent
// process (kashi-agent <server> <state-dir> <grace>), so restart tests can SIGKILL real
// processes.
func TestMain(m *testing.M) {
	if len(os.Args) > 2 {
		switch os.Args[1] {
		case "kashi-supervise":
			if err := Supervise(os.Args[2]); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(1)
			}
			os.Exit(0)
		case "kashi-agent":
			os.Exit(helperAgent(os.Args[2:]))
		}
	}
	os.Exit(m.Run())
}

// testSupervisor is the supervisor argv of the test binary.
func testSupervisor() []string { return []string{os.Args[0], "kashi-supervise"} }

// helperAgent runs an agent over two mock GPUs with a SupervisedRunner until SIGTERM or SIGKILL.
func helperAgent(args []string) int {
	grace, err := time.ParseDuration(args[2])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	a := New(Config{
		Server: args[0], JoinToken: "join", Pool: "a100", Hostname: "node-1", StateDir: args[1],
		SampleInterval: 20 * time.Millisecond, PollInterval: 20 * time.Millisecond, StopGrace: grace,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, nil)),
	}, newMockNVML(2), SupervisedRunner{StateDir: args[1], Supervisor: testSupervisor(), Grace: grace})
	if err := a.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// waitFile waits up to 5 s for a file to exist.
func waitFile(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not appear", path)
		}
	}
}

// groupAlive reports whether the process group pgid has a member that is not a zombie.
func groupAlive(t *testing.T, pgid int) bool {
	t.Helper()
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if _, err := strconv.Atoi(d.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + d.Name() + "/stat")
		if err != nil {
			continue
		}
		// after the command's closing parenthesis: state, ppid, pgrp
		i := strings.LastIndexByte(string(b), ')')
		f := strings.Fields(string(b[i+1:]))
		if len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			return true
		}
	}
	return false
}

// killProcessGroup kills what is left of a test task's process group.
func killProcessGroup(pgid int) { syscall.Kill(-pgid, syscall.SIGKILL) }
