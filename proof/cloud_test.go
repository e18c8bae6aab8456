package proof

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"kashi/agent"
	"kashi/agent/simgpu"
)

// fleetScript is the exec provider's one script, whose cloud is the directory
// $KASHI_EXEC_STATE (testdata/exec).
var fleetScript, _ = filepath.Abs("../testdata/exec/fleet.sh")

// execCloud brings the exec provider's cloud to life: each machine the scaling loop creates
// there boots an agent (the real agent code on simulated GPUs) carrying the machine's id, in
// pool, reporting to the servers in turn; a deleted machine's agent stops, as a cloud's
// machine would.
type execCloud struct {
	dir     string
	pool    string
	servers []string
	tmp     string

	mu      sync.Mutex
	running map[string]context.CancelFunc
	// booted is every machine that ever booted, in order.
	booted []string
	agents sync.WaitGroup
}

func newExecCloud(dir, pool, tmp string, servers []string) *execCloud {
	return &execCloud{dir: dir, pool: pool, servers: servers, tmp: tmp, running: map[string]context.CancelFunc{}}
}

// run boots and stops agents as machines come and go, until ctx ends; then it stops them all.
func (c *execCloud) run(ctx context.Context) {
	defer c.agents.Wait()
	for sleepCtx(ctx, 200*time.Millisecond) {
		entries, err := os.ReadDir(filepath.Join(c.dir, "machines"))
		if err != nil {
			continue
		}
		live := map[string]bool{}
		for _, e := range entries {
			if id := e.Name(); !strings.HasPrefix(id, ".") {
				live[id] = true
				c.boot(ctx, id)
			}
		}
		c.mu.Lock()
		for id, stop := range c.running {
			if !live[id] {
				stop()
				delete(c.running, id)
			}
		}
		c.mu.Unlock()
	}
}

// boot starts machine id's agent unless it runs.
func (c *execCloud) boot(ctx context.Context, id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.running[id]; ok {
		return
	}
	backend := simgpu.New(simgpu.A100_80G, 8, time.Now, int64(len(c.booted)+100))
	a := agent.New(agent.Config{Server: "http://" + c.servers[len(c.booted)%len(c.servers)], JoinToken: joinToken,
		Pool: c.pool, Hostname: id, MachineID: id, SampleInterval: time.Second, PollInterval: time.Second,
		StopGrace: time.Second, StateDir: filepath.Join(c.tmp, "cloud-"+id),
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, backend, backend.Runner())
	actx, stop := context.WithCancel(ctx)
	c.running[id] = stop
	c.booted = append(c.booted, id)
	c.agents.Go(func() { a.Run(actx) })
}

// machinesKnown: every machine that booted in the cloud is one machine of the database (a
// second leader deciding the same scale-up would have made a machine no row knows).
func (c *execCloud) machinesKnown(l *ledger, v violations) {
	rows := map[string]int{}
	for _, m := range l.machines {
		rows[m.ProviderID]++
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range c.booted {
		if rows[id] != 1 {
			v.add("decision taken twice", "cloud machine %s is %d machines of the database", id, rows[id])
		}
	}
}
