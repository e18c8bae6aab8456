//go:build unix

package scaler

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	kfleet "kashi/fleet"
	"kashi/fleet/exec"
	"kashi/models"
)

// The SIGKILL crash test runs the scaler in a child process (this test binary again, with
// crashChildEnv set) on a SQLite file and the exec provider, whose cloud is a directory, and
// kills it with SIGKILL at random moments: inside a store transaction, between the intent and
// the create, while a script runs. Scripts run in their own process groups, so a killed
// server's cloud call goes on, as a real one would.
const (
	crashChildEnv = "KASHI_SCALE_CRASH_CHILD"
	// crashSpeed is the child's virtual clock rate: a real second is 10 minutes.
	crashSpeed = 600
)

func execProvider(t testing.TB, state string) *exec.Provider {
	dir, _ := filepath.Abs("../testdata/exec")
	sh := func(verb string) []string { return []string{filepath.Join(dir, verb+".sh")} }
	p, err := exec.New(exec.Config{Create: sh("create"), List: sh("list"), Get: sh("get"), Delete: sh("delete"),
		Flavors: sh("flavors"), Timeout: 10 * time.Second, Env: []string{"KASHI_EXEC_STATE=" + state}})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// runCrashChild is the child: it ticks the scaler as fast as it can on a virtual clock
// starting at KASHI_CRASH_NOW, until it is killed (or 20 real seconds pass).
func runCrashChild(t *testing.T) {
	ctx := context.Background()
	store, err := models.Open(ctx, os.Getenv("KASHI_CRASH_DB"), models.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sec, _ := strconv.ParseInt(os.Getenv("KASHI_CRASH_NOW"), 10, 64)
	base, start := time.Unix(sec, 0).UTC(), time.Now()
	scaler := New(store, Config{Providers: map[string]kfleet.Provider{"exec": execProvider(t, os.Getenv("KASHI_CRASH_STATE"))},
		Cluster: "test", NodeStaleAfter: 1000 * time.Hour, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	fmt.Println("ready")
	for time.Since(start) < 20*time.Second {
		scaler.RunOnce(ctx, base.Add(time.Since(start)*crashSpeed))
		time.Sleep(2 * time.Millisecond)
	}
}

// TestScalerSurvivesSIGKILL kills the scaling server with SIGKILL at random points during
// scale-ups and scale-downs, many times, restarting it each time from the same SQLite file
// and the same cloud. Between runs, agents of running machines register (most of them) and
// admins change the pool's bounds. After a fault-free settle, the cloud holds no duplicate and
// no orphan machine, and the pool is within its bounds.
func TestScalerSurvivesSIGKILL(t *testing.T) {
	if os.Getenv(crashChildEnv) != "" {
		runCrashChild(t)
		return
	}
	kills := 20
	if testing.Short() {
		kills = 6
	}
	ctx := context.Background()
	dir := t.TempDir()
	path, state := filepath.Join(dir, "kashi.db"), filepath.Join(dir, "cloud")
	prov := execProvider(t, state)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	w := &fleetWorld{t: t, prov: prov, rng: rng, boots: map[string]bool{}}
	now := st0
	for i := range kills {
		store, err := models.Open(ctx, path, models.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if i%4 == 0 {
			cfg := crashConfig(rng)
			cfg.Provider, cfg.BootTimeoutS = "exec", 1800
			if _, err := store.SavePoolConfig(ctx, "a100", cfg, "admin", "", now); err != nil {
				t.Fatal(err)
			}
		}
		w.agents(ctx, store, now)
		store.Close()

		cmd := osexec.Command(os.Args[0], "-test.run=^TestScalerSurvivesSIGKILL$")
		cmd.Env = append(os.Environ(), crashChildEnv+"=1", "KASHI_CRASH_DB="+path, "KASHI_CRASH_STATE="+state,
			fmt.Sprintf("KASHI_CRASH_NOW=%d", now.Unix()))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill at a random moment once the child ticks (or at once, now and then).
		if rng.IntN(5) > 0 {
			bufio.NewReader(out).ReadString('\n')
		}
		time.Sleep(time.Duration(rng.IntN(300)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
		now = now.Add(time.Since(start)*crashSpeed + time.Second)
	}
	// The killed servers' scripts may still run: let them finish.
	time.Sleep(200 * time.Millisecond)
	store, err := models.Open(ctx, path, models.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	scaler := New(store, Config{Providers: map[string]kfleet.Provider{"exec": prov}, Cluster: "test",
		NodeStaleAfter: 1000 * time.Hour, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	settle(t, ctx, store, w, scaler, &now)
	checkFleet(t, ctx, store, prov, fmt.Sprintf("after %d SIGKILLs", kills))
	cp, _ := store.ConfiguredPoolByName(ctx, "a100")
	evs, _ := store.ScalingEvents(ctx, cp.ID, 0)
	kinds := map[string]int{}
	for _, e := range evs {
		kinds[e.Kind]++
	}
	t.Logf("%d SIGKILLs; scaling events by kind: %v", kills, kinds)
	if kinds[string(ActionScaleUp)] == 0 {
		t.Errorf("no scale-up happened: the test exercised nothing (%v)", kinds)
	}
}
