package exec

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kashi/fleet"
	"kashi/fleet/fleettest"
)

// scripts is the directory of the test fleet's scripts.
var scripts, _ = filepath.Abs("../../testdata/exec")

// testConfig runs the testdata scripts against a cloud kept in state.
func testConfig(state string, env ...string) Config {
	sh := func(name string) []string { return []string{filepath.Join(scripts, name+".sh")} }
	return Config{Create: sh("create"), List: sh("list"), Get: sh("get"), Delete: sh("delete"), Flavors: sh("flavors"),
		Timeout: 10 * time.Second, Env: append([]string{"KASHI_EXEC_STATE=" + state}, env...)}
}

// exhaustible adds the conformance suite's capacity switch: a capacity file of 0.
type exhaustible struct {
	*Provider
	state string
}

func (e exhaustible) ExhaustCapacity() {
	os.WriteFile(filepath.Join(e.state, "capacity"), []byte("0\n"), 0o644)
}

func newTestProvider(t *testing.T, state string, env ...string) *Provider {
	t.Helper()
	p, err := New(testConfig(state, env...))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestConformance(t *testing.T) {
	fleettest.Run(t, func(t *testing.T) fleet.Provider {
		state := t.TempDir()
		return exhaustible{newTestProvider(t, state), state}
	})
}

func req(key string) fleet.CreateRequest {
	return fleet.CreateRequest{Pool: "a100", Flavor: "gpu.a100.8x", Image: "img", IdempotencyKey: key,
		Tags: fleet.Tags("test", "a100", key)}
}

func machinesWithKey(t *testing.T, p fleet.Provider, key string) []fleet.Machine {
	t.Helper()
	ms, err := p.List(context.Background(), "a100")
	if err != nil {
		t.Fatal(err)
	}
	var out []fleet.Machine
	for _, m := range ms {
		if m.IdempotencyKey == key {
			out = append(out, m)
		}
	}
	return out
}

// TestRunKilledAtTimeout: a script still running at the timeout is killed, its children
// with it, and the error says so.
func TestRunKilledAtTimeout(t *testing.T) {
	slow := writeScript(t, t.TempDir(), "slow.sh", "sleep 300\n")
	p, err := New(Config{Create: []string{slow}, List: []string{slow}, Get: []string{slow}, Delete: []string{slow},
		Flavors: []string{slow}, Timeout: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = p.Flavors(context.Background())
	var se *ScriptError
	if !errors.As(err, &se) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Flavors with a 300ms timeout = %v, want a ScriptError wrapping the deadline", err)
	}
	if d := time.Since(start); d > time.Minute {
		t.Errorf("the killed script took %s: its sleep was not killed with it", d)
	}
}

// killedAt returns a context cancelled once the file marker exists: the script has got that
// far, whatever the machine's speed.
func killedAt(t *testing.T, marker string) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		for {
			if _, err := os.Stat(marker); err == nil {
				cancel()
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return ctx
}

// TestCreateKilledAfterCloudCall kills the create script once the machine exists but before
// it answers, as a timeout or a crash would; running it again with the key finds the machine
// instead of making a second one.
func TestCreateKilledAfterCloudCall(t *testing.T) {
	state := t.TempDir()
	created := filepath.Join(t.TempDir(), "created")
	slow := newTestProvider(t, state, "KASHI_EXEC_CREATE_SLEEP=300", "KASHI_EXEC_CREATED="+created)
	slow.cfg.Timeout = time.Hour // only the kill ends it
	start := time.Now()
	_, err := slow.Create(killedAt(t, created), req("slot-1"))
	var se *ScriptError
	if !errors.As(err, &se) || !errors.Is(err, context.Canceled) {
		t.Fatalf("Create killed after the cloud call = %v, want a ScriptError wrapping the cancel", err)
	}
	if d := time.Since(start); d > time.Minute {
		t.Errorf("the killed create took %s: its sleep was not killed with it", d)
	}
	if n := len(machinesWithKey(t, slow, "slot-1")); n != 1 {
		t.Fatalf("after the kill the cloud holds %d machines of the key, want 1 (the kill came after the call)", n)
	}
	p := newTestProvider(t, state)
	m, err := p.Create(context.Background(), req("slot-1"))
	if err != nil {
		t.Fatalf("Create again after the kill: %v", err)
	}
	if got := machinesWithKey(t, p, "slot-1"); len(got) != 1 || got[0].ID != m.ID {
		t.Errorf("after the re-run List = %+v, want exactly %s", got, m.ID)
	}
}

// TestCreateKilledHoldingLock kills the create script while it holds the state lock and has
// created nothing; the re-run breaks the dead holder's lock and makes exactly one machine.
func TestCreateKilledHoldingLock(t *testing.T) {
	state := t.TempDir()
	pausing := filepath.Join(t.TempDir(), "pausing")
	slow := newTestProvider(t, state, "KASHI_EXEC_CREATE_PAUSE=300", "KASHI_EXEC_PAUSING="+pausing)
	slow.cfg.Timeout = time.Hour // only the kill ends it
	if _, err := slow.Create(killedAt(t, pausing), req("slot-2")); !errors.Is(err, context.Canceled) {
		t.Fatalf("Create killed holding the lock = %v, want the cancel", err)
	}
	if _, err := os.Stat(filepath.Join(state, "lock")); err != nil {
		t.Fatalf("the killed script left no lock (%v); the test no longer covers a stale lock", err)
	}
	if n := len(machinesWithKey(t, slow, "slot-2")); n != 0 {
		t.Fatalf("the cloud holds %d machines after a kill before the call, want 0", n)
	}
	p := newTestProvider(t, state)
	for range 2 {
		if _, err := p.Create(context.Background(), req("slot-2")); err != nil {
			t.Fatalf("Create after the kill: %v", err)
		}
	}
	if n := len(machinesWithKey(t, p, "slot-2")); n != 1 {
		t.Errorf("after two re-runs the cloud holds %d machines of the key, want 1", n)
	}
}

// writeScript writes an executable sh script into dir.
func writeScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestScriptFailures(t *testing.T) {
	dir := t.TempDir()
	all := writeScript(t, dir, "fleet.sh", `
case $1 in
create) cat >/dev/null; echo "quota exceeded for flavor" >&2; exit 4 ;;
get) echo "instance not found" >&2; exit 3 ;;
delete) exit 3 ;;
list) i=0; while [ $i -lt 300 ]; do echo "noise line $i" >&2; i=$((i+1)); done; echo "real cause: token expired" >&2; exit 1 ;;
flavors) echo "not json" ;;
esac
`)
	p, err := New(Config{Script: all, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := p.Create(ctx, req("k1")); !errors.Is(err, fleet.ErrCapacity) || !strings.Contains(err.Error(), "quota exceeded") {
		t.Errorf("Create exiting 4 = %v, want fleet.ErrCapacity with the stderr", err)
	}
	if _, err := p.Get(ctx, "i-1"); !errors.Is(err, fleet.ErrNotFound) {
		t.Errorf("Get exiting 3 = %v, want fleet.ErrNotFound", err)
	}
	if err := p.Delete(ctx, "i-1"); err != nil {
		t.Errorf("Delete exiting 3 = %v, want nil (gone counts as deleted)", err)
	}
	_, err = p.List(ctx, "a100")
	var se *ScriptError
	if !errors.As(err, &se) || se.ExitCode != 1 {
		t.Fatalf("List exiting 1 = %v, want a ScriptError with exit status 1", err)
	}
	if !strings.Contains(se.Stderr, "token expired") || len(se.Stderr) > maxStderr+4 || !strings.HasPrefix(se.Stderr, "…") {
		t.Errorf("List error stderr = %q (%d bytes), want its truncated end with the cause", se.Stderr, len(se.Stderr))
	}
	if _, err := p.Flavors(ctx); err == nil || !strings.Contains(err.Error(), "not json") {
		t.Errorf("Flavors printing no JSON = %v, want an error quoting the answer", err)
	}
}

func TestNewNeedsEveryVerb(t *testing.T) {
	if _, err := New(Config{Create: []string{"/bin/true"}}); err == nil {
		t.Error("New with only a create script succeeded, want an error")
	}
}

func TestFlavors(t *testing.T) {
	p := newTestProvider(t, t.TempDir())
	fs, err := p.Flavors(context.Background())
	if err != nil || len(fs) != 1 || fs[0].Name != "gpu.a100.8x" || fs[0].GPUs != 8 {
		t.Errorf("Flavors = %+v, %v; want the one A100 flavor", fs, err)
	}
}
