package proof

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"kashi/agent"
	"kashi/agent/simgpu"
	"kashi/models"
)

// Replicas of the proof, its fixed nodes (the rest come from scale-ups in the burst pool),
// and how long a killed leader may go unreplaced: the followers try the lock every 10 s
// (leaderEvery in control/leader.go), so the bound is that plus a margin for a loaded machine.
const (
	replicas      = 3
	replicaAgents = 2
	takeoverBound = 15 * time.Second
	burstPool     = "burst"
)

// TestReplicas runs three `kashi serve` on one Postgres database, with agents (the real
// agent code on simulated GPUs, in this process) and a submitting client spread over them,
// kills the leader -replica-kills times and restarts it, and shows: exactly one replica runs
// the loops at any moment but a hand-over (the advisory lock's holder in pg_locks; never two
// with kashi_leader 1 on their /metrics), a killed leader is replaced within takeoverBound, and no
// decision was taken twice (no task placed twice, no card given twice, every task submitted
// once, every machine the scaling loops made in the exec provider's cloud known once). The
// submits ask for more cards than the fixed nodes hold, so the burst pool scales up.
func TestReplicas(t *testing.T) {
	if *replicaKills == 0 {
		t.Skip("asked for with -replica-kills N")
	}
	db := postgresDB(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	logPath := filepath.Join(t.TempDir(), "serve.log")
	defer keepLog(t, logPath)

	cloudDir := t.TempDir()
	t.Setenv("KASHI_EXEC_STATE", cloudDir) // the servers' scripts find their cloud there
	addrs := make([]string, replicas)
	srvs := make([]*server, replicas)
	start := func(i int) *server {
		dsn := db.DSN + fmt.Sprintf(" application_name=replica-%d", i)
		return startPlain(t, dsn, addrs[i], logPath, "--fleet-script", fleetScript, "--scale-every", "1s")
	}
	for i := range addrs {
		addrs[i] = freeAddr(t)
		srvs[i] = start(i)
		if err := srvs[i].waitHealthy(time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	defer func() {
		for _, s := range srvs {
			s.kill()
		}
	}()
	token := seedReplicas(ctx, t, db)

	agentsCtx, stopAgents := context.WithCancel(ctx)
	var agents sync.WaitGroup
	for i := range replicaAgents {
		backend := simgpu.New(simgpu.A100_80G, 8, time.Now, int64(i+1))
		a := agent.New(agent.Config{Server: "http://" + addrs[i%replicas], JoinToken: joinToken, Pool: "a100",
			Hostname: fmt.Sprintf("node-%d", i), MachineID: fmt.Sprintf("fixed-%d", i), SampleInterval: time.Second,
			PollInterval: time.Second, StopGrace: time.Second, StateDir: filepath.Join(t.TempDir(), fmt.Sprint(i)),
			Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, backend, backend.Runner())
		agents.Go(func() { a.Run(agentsCtx) })
	}
	cloud := newExecCloud(cloudDir, burstPool, t.TempDir(), addrs)
	agents.Go(func() { cloud.run(agentsCtx) })
	defer func() { stopAgents(); agents.Wait() }()

	sub := newSubmitter(token, addrs, uint64(time.Now().UnixNano()))
	sub.shortRuns, sub.projects, sub.specs = true, []string{"vision"}, []string{"A100-80G"}
	subCtx, stopSubmits := context.WithCancel(ctx)
	submitted := make(chan struct{})
	go func() { sub.run(subCtx, 400*time.Millisecond); close(submitted) }()

	watch := newLeaderWatch(t, db, addrs)
	go watch.run(ctx)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 2))
	var takeovers []time.Duration
	leader, err := watch.waitLeader(-1, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	for kill := 1; kill <= *replicaKills; kill++ {
		time.Sleep(2*time.Second + time.Duration(rng.Int64N(int64(3*time.Second))))
		if leader, err = watch.holder(); err != nil || leader < 0 {
			t.Fatalf("kill %d: no leader (%v)", kill, err)
		}
		killedAt := time.Now()
		watch.down(leader)
		if err := srvs[leader].kill(); err != nil {
			t.Fatalf("kill %d: replica %d had exited by itself: %v", kill, leader, err)
		}
		next, err := watch.waitLeader(leader, time.Minute)
		if err != nil {
			t.Fatalf("kill %d: %v", kill, err)
		}
		took := time.Since(killedAt)
		takeovers = append(takeovers, took)
		t.Logf("kill %d: leader replica-%d killed, replica-%d leads %s later", kill, leader, next, took.Round(10*time.Millisecond))
		if took > takeoverBound {
			t.Errorf("kill %d: replica-%d took over %s after the kill, over the bound %s", kill, next, took, takeoverBound)
		}
		srvs[leader] = start(leader)
		if err := srvs[leader].waitHealthy(time.Minute); err != nil {
			t.Fatal(err)
		}
		watch.up(leader)
		leader = next
	}
	stopSubmits()
	<-submitted
	if left := sub.drain(ctx, time.Minute); len(left) > 0 {
		t.Errorf("%d submits never answered: %v", len(left), left[:min(5, len(left))])
	}
	// The last tasks run out (they run seconds), then everything stops.
	waitQuiet(ctx, t, db, time.Minute)
	stopAgents()
	agents.Wait()
	watch.mu.Lock()
	watch.handover = true // the replicas stop one by one: the lock may go unheld
	watch.mu.Unlock()
	for _, s := range srvs {
		s.stop(t)
	}
	cancel()
	<-watch.done

	l, err := readLedger(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	v := violations{}
	l.noGPUGivenTwice(v)
	l.noTaskRunTwice(v)
	if a, b := l.ledgerConserved(v); a != b {
		v.add("ledger not conserved", "ended tasks' allocations hold %d card-seconds, the tasks %d", a, b)
	}
	sub.everyTaskOnce(l, v)
	l.noDuplicateMachines(v)
	cloud.machinesKnown(l, v)
	if len(cloud.booted) == 0 {
		v.add("no scale-up", "the burst pool never grew: the proof showed nothing of the scaling loop")
	}
	for _, e := range watch.errs {
		v.add("not exactly one leader", "%s", e)
	}
	worst := time.Duration(0)
	for _, d := range takeovers {
		worst = max(worst, d)
	}
	t.Logf("%d leader kills; takeover worst %s (bound %s); %d polls of pg_locks and /metrics; %d tasks submitted over %d replicas, %s; %d machines booted by scale-ups",
		*replicaKills, worst.Round(10*time.Millisecond), takeoverBound, watch.polls, len(sub.order), replicas, l.counts(), len(cloud.booted))
	if len(v) > 0 {
		t.Errorf("invariants broken:\n%s", v)
	}
}

// startPlain starts `kashi serve` (no demo) on dsn at addr, its scheduler ticking every 2 s,
// with more flags.
func startPlain(t *testing.T, dsn, addr, logPath string, more ...string) *server {
	return startArgs(t, addr, logPath, append([]string{"serve", "--db", dsn, "--addr", addr, "--join-token", joinToken,
		"--tick", "2s", "--log-level", "info", "--lang", "en"}, more...)...)
}

// seedReplicas makes the project vision, its member alice with a quota of 64 cards, the
// burst pool on the exec provider, and alice's API token.
func seedReplicas(ctx context.Context, t *testing.T, db database) string {
	s, err := models.Open(ctx, db.DSN, models.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	now := time.Now()
	p, err := s.EnsureProject(ctx, "vision", now)
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.CreateUser(ctx, submitOwner, "proof-password", models.RoleUser, now)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetMember(ctx, p.ID, u.ID, models.ProjectRoleMember); err != nil {
		t.Fatal(err)
	}
	month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	q := models.Quota{ProjectID: p.ID, MaxGPUs: 64, BudgetCardHours: 100000, StartsAt: month, EndsAt: month.AddDate(0, 3, 0)}
	if _, err := s.SetQuota(ctx, "proof", q, now); err != nil {
		t.Fatal(err)
	}
	// The burst pool grows by one machine at a time as soon as demand waits, and gives
	// machines back a few seconds after they are unneeded.
	burst := models.PoolConfig{Provider: "exec", Spec: "A100-80G", GPUsPerNode: 8, Flavor: "gpu.a100.8x", Enabled: true,
		MaxNodes: 3, Step: 1, MaxInFlight: 1, ScaleUpDelayS: 1, CooldownUpS: 2, BootTimeoutS: 60, UnneededS: 5,
		CooldownDownS: 2, DrainBufferS: 1}
	if _, err := s.SavePoolConfig(ctx, burstPool, burst, "proof", "", now); err != nil {
		t.Fatal(err)
	}
	tok, _, err := s.CreateAPIToken(ctx, u.ID, "proof submitter", models.ScopeWrite, now)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// waitQuiet waits until no task of the proof is queued, starting or running.
func waitQuiet(ctx context.Context, t *testing.T, db database, timeout time.Duration) {
	conn, err := sql.Open(db.Driver, db.Source)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(time.Second) {
		var n int
		err := conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM tasks WHERE state IN ('queued', 'starting', 'running')").Scan(&n)
		if err == nil && n == 0 {
			return
		}
	}
	t.Logf("tasks still live %s after the last kill", timeout)
}

// leaderWatch polls, every 100 ms, which replica holds the leader lock (pg_locks, by the
// application_name each replica's DSN carries) and what each live replica's /metrics says
// of kashi_leader, and records any moment at which two replicas claimed to lead.
type leaderWatch struct {
	t     *testing.T
	conn  *sql.DB
	addrs []string
	done  chan struct{}

	mu   sync.Mutex
	live []bool
	lock int // the lock's holder at the last poll; -1 for none
	// handover is true from a leader's kill (and the start) until another leads: the only
	// time no replica may hold the lock.
	handover bool
	// kills counts the leaders killed: a poll during which one was killed saw two moments
	// and proves nothing about either.
	kills  int
	errs   []string
	polls  int
	client *http.Client
}

func newLeaderWatch(t *testing.T, db database, addrs []string) *leaderWatch {
	conn, err := sql.Open(db.Driver, db.Source)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	live := make([]bool, len(addrs))
	for i := range live {
		live[i] = true
	}
	return &leaderWatch{t: t, conn: conn, addrs: addrs, done: make(chan struct{}), live: live, lock: -1,
		handover: true, client: &http.Client{Timeout: 2 * time.Second}}
}

// leaderLockQuery names the replica holding the advisory lock models.LeaderLockKey in this
// database: Postgres splits the bigint key into classid (high 32 bits) and objid (low).
var leaderLockQuery = fmt.Sprintf(`SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
WHERE l.locktype = 'advisory' AND l.granted AND l.classid = %d AND l.objid = %d
AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
	models.LeaderLockKey>>32, models.LeaderLockKey&0xffffffff)

func (w *leaderWatch) run(ctx context.Context) {
	defer close(w.done)
	for sleepCtx(ctx, 100*time.Millisecond) {
		// A poll reads pg_locks and then each replica's /metrics, which takes a while on a
		// loaded machine: it judges only what no kill or hand-over overlapped.
		w.mu.Lock()
		kills, handover := w.kills, w.handover
		w.mu.Unlock()
		holders, err := w.lockHolders(ctx)
		if err != nil {
			continue
		}
		claims := w.metricClaims()
		w.mu.Lock()
		w.polls++
		at := time.Now().Format("15:04:05.000")
		settled := kills == w.kills && !handover && !w.handover
		w.lock = -1
		if len(holders) > 1 {
			w.errs = append(w.errs, fmt.Sprintf("%s pg_locks: the lock held by %v", at, holders))
		}
		if len(holders) == 1 {
			w.lock = holders[0]
		}
		if len(holders) == 0 && settled {
			w.errs = append(w.errs, at+" pg_locks: no replica held the lock, none being killed")
		}
		if len(claims) > 1 && kills == w.kills {
			w.errs = append(w.errs, fmt.Sprintf("%s /metrics: kashi_leader 1 on replicas %v", at, claims))
		}
		w.mu.Unlock()
	}
}

// lockHolders lists the replicas holding the leader lock.
func (w *leaderWatch) lockHolders(ctx context.Context) ([]int, error) {
	var out []int
	err := each(ctx, w.conn, leaderLockQuery, func(r *sql.Rows) error {
		var name string
		if err := r.Scan(&name); err != nil {
			return err
		}
		var i int
		if _, err := fmt.Sscanf(name, "replica-%d", &i); err != nil {
			return fmt.Errorf("the lock is held by %q", name)
		}
		out = append(out, i)
		return nil
	})
	return out, err
}

// metricClaims lists the live replicas whose /metrics says kashi_leader 1.
func (w *leaderWatch) metricClaims() []int {
	var out []int
	for i, addr := range w.addrs {
		w.mu.Lock()
		live := w.live[i]
		w.mu.Unlock()
		if !live {
			continue
		}
		resp, err := w.client.Get("http://" + addr + "/metrics")
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if sc.Text() == "kashi_leader 1" {
				out = append(out, i)
			}
		}
		resp.Body.Close()
	}
	return out
}

// down and up mark a replica killed and started again: a dead one's /metrics is not read,
// and until waitLeader sees another leader no holder is expected.
func (w *leaderWatch) down(i int) {
	w.mu.Lock()
	w.live[i], w.handover = false, true
	w.kills++
	w.mu.Unlock()
}
func (w *leaderWatch) up(i int) { w.mu.Lock(); w.live[i] = true; w.mu.Unlock() }

// holder is the lock's holder now.
func (w *leaderWatch) holder() (int, error) {
	h, err := w.lockHolders(context.Background())
	if err != nil || len(h) != 1 {
		return -1, err
	}
	return h[0], nil
}

// waitLeader waits until a replica other than not holds the lock.
func (w *leaderWatch) waitLeader(not int, timeout time.Duration) (int, error) {
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if h, err := w.holder(); err == nil && h >= 0 && h != not {
			w.mu.Lock()
			w.handover = false
			w.mu.Unlock()
			return h, nil
		}
	}
	return -1, fmt.Errorf("no replica took the leader lock within %s", timeout)
}

// keepLog copies the servers' log next to the kept database (-keep-db) and shows its tail
// when the test failed.
func keepLog(t *testing.T, logPath string) {
	b, err := os.ReadFile(logPath)
	if err != nil {
		return
	}
	if *keepDB {
		kept := filepath.Join(os.TempDir(), "proofs-"+strings.ReplaceAll(t.Name(), "/", "-")+".log")
		os.WriteFile(kept, b, 0o644)
		t.Logf("kept the servers' log in %s", kept)
	}
	if t.Failed() {
		t.Logf("servers' log (last 8 KiB):\n%s", tail(b, 8<<10))
	}
}
