package proof

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kashi/billing"
	"kashi/models"
)

// TestCrash kills `kashi serve --demo` with SIGKILL at random moments -crash-kills times,
// on SQLite and on Postgres, restarting it on the same database each time, while a client
// submits tasks with Idempotency-Keys and retries those no server answered. The demo's
// agents run inside the server process, so they die with it and their machines with them;
// each restart's agents are new machines. After a last, long life that lets recovery close
// what the dead nodes held, the invariants are read from the database: no GPU given twice,
// every submitted task there exactly once, no task run twice, the ledger equal to what the
// tasks held, every ended task billed once and no duplicate machine.
func TestCrash(t *testing.T) {
	if *crashKills == 0 {
		t.Skip("asked for with -crash-kills N")
	}
	t.Run("sqlite", func(t *testing.T) { t.Parallel(); crashProof(t, sqliteDB(t)) })
	t.Run("postgres", func(t *testing.T) { t.Parallel(); crashProof(t, postgresDB(t)) })
}

// crashProof runs the kills on db and checks it.
func crashProof(t *testing.T, db database) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	addr := freeAddr(t)
	logPath := filepath.Join(t.TempDir(), "serve.log")
	defer keepLog(t, logPath)

	// The first life runs until the demo is seeded, so the submitter has a token.
	srv := startServer(t, db, addr, logPath)
	if err := srv.waitHealthy(2 * time.Minute); err != nil {
		t.Fatal(err)
	}
	sub := newSubmitter(newToken(ctx, t, db), []string{addr}, seed)
	subCtx, stopSubmits := context.WithCancel(ctx)
	submitted := make(chan struct{})
	go func() { sub.run(subCtx, 300*time.Millisecond); close(submitted) }()

	began := time.Now()
	var restartedAt time.Time
	for kill := 1; kill <= *crashKills; kill++ {
		life := time.Duration(rng.Int64N(int64(*crashLife)))
		time.Sleep(life)
		if err := srv.kill(); err != nil {
			t.Fatalf("kill %d: the server had exited by itself: %v", kill, err)
		}
		if kill == *crashKills {
			var err error
			if restartedAt, err = lastStamp(ctx, db); err != nil {
				t.Fatal(err)
			}
		}
		srv = startServer(t, db, addr, logPath)
	}
	killing := time.Since(began)
	stopSubmits()
	<-submitted

	// The last life lasts until recovery gave up every node of the earlier lives (their
	// agents died with them), closing what they held, and every unanswered submit got its
	// answer.
	if err := srv.waitHealthy(2 * time.Minute); err != nil {
		t.Fatalf("after %d kills: %v", *crashKills, err)
	}
	if left := sub.drain(ctx, time.Minute); len(left) > 0 {
		t.Errorf("%d submits never answered: %v", len(left), left[:min(5, len(left))])
	}
	recovered, err := waitRecovered(ctx, db, restartedAt, 3*time.Minute)
	if err != nil {
		t.Error(err)
	}
	srv.stop(t)

	l, err := readLedger(ctx, db)
	if err != nil {
		t.Fatalf("read the ledger: %v", err)
	}
	v := violations{}
	l.noGPUGivenTwice(v)
	l.noTaskRunTwice(v)
	ledgerS, taskS := l.ledgerConserved(v)
	if ledgerS != taskS {
		v.add("ledger not conserved", "ended tasks' allocations hold %d card-seconds, the tasks %d", ledgerS, taskS)
	}
	sub.everyTaskOnce(l, v)
	l.noDuplicateMachines(v)
	billedOnce(ctx, t, db, l, v)
	counts := l.counts()
	t.Logf("recovery gave up the dead nodes %s after the last restart", recovered.Round(time.Second))
	rerun, again := l.reruns()
	t.Logf("%d kills in %s (mean life %s); %d tasks submitted by the proof, %s; %d tasks in all, %d allocations, %d nodes, %d machines; ledger %.1f card-hours of ended attempts; %d tasks rerun, %d of them placed again",
		*crashKills, killing.Round(time.Second), (killing / time.Duration(*crashKills)).Round(10*time.Millisecond),
		len(sub.order), counts, len(l.tasks), len(l.allocs), len(l.nodes), len(l.machines), float64(ledgerS)/3600, rerun, again)
	if len(v) > 0 {
		t.Errorf("invariants broken:\n%s", v)
	}
}

// lastStamp is where the demo's clock continues on db (see models.Store.LastStamp).
func lastStamp(ctx context.Context, db database) (time.Time, error) {
	store, err := models.Open(ctx, db.DSN, models.Options{})
	if err != nil {
		return time.Time{}, err
	}
	defer store.Close()
	return store.LastStamp(ctx)
}

// waitRecovered waits until no node last heard from at or before the last restart
// (restartedAt: every agent of the last life reports later) is ready or draining, and
// returns how long that took.
func waitRecovered(ctx context.Context, db database, restartedAt time.Time, timeout time.Duration) (time.Duration, error) {
	conn, err := sql.Open(db.Driver, db.Source)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	began := time.Now()
	for {
		alive := 0
		err := each(ctx, conn, "SELECT state, last_seen_at FROM nodes", func(r *sql.Rows) error {
			var state string
			var seen time.Time
			if err := r.Scan(&state, &seen); err != nil {
				return err
			}
			if (state == models.NodeReady || state == models.NodeDraining) && !seen.After(restartedAt) {
				alive++
			}
			return nil
		})
		if err == nil && alive == 0 {
			return time.Since(began), nil
		}
		if time.Since(began) > timeout {
			return time.Since(began), fmt.Errorf("%d nodes of the dead servers still count as alive %s after the last restart (err %v)", alive, timeout, err)
		}
		time.Sleep(time.Second)
	}
}

// everyTaskOnce: every key the submitter sent is one task, the one it was answered with,
// and no other task carries the submitter's keys.
func (s *submitter) everyTaskOnce(l *ledger, v violations) {
	for _, r := range s.refused {
		v.add("task refused", "%s", r)
	}
	byKey := map[string][]int64{}
	for _, t := range l.tasks {
		if strings.HasPrefix(t.Key, "proof-") {
			byKey[t.Key] = append(byKey[t.Key], t.ID)
		}
	}
	for _, key := range s.order {
		ids, id := byKey[key], s.sent[key].id
		switch {
		case id <= 0:
			v.add("task lost", "%s was never answered", key)
		case len(ids) == 0:
			v.add("task lost", "%s was answered as task %d, which is not there", key, id)
		case len(ids) > 1:
			v.add("task duplicated", "%s is tasks %v", key, ids)
		case ids[0] != id:
			v.add("task duplicated", "%s was answered as task %d and stored as %d", key, id, ids[0])
		}
		delete(byKey, key)
	}
	for key, ids := range byKey {
		v.add("task duplicated", "%s (tasks %v) was never sent", key, ids)
	}
}

// billedOnce: the month's bills, computed as the bill pages do, charge each ended task of
// the month in one bill, for exactly its allocations' seconds in the month.
func billedOnce(ctx context.Context, t *testing.T, db database, l *ledger, v violations) {
	store, err := models.Open(ctx, db.DSN, models.Options{})
	if err != nil {
		t.Fatalf("open the store: %v", err)
	}
	defer store.Close()
	loc, err := billing.Location(ctx, store)
	if err != nil {
		t.Fatal(err)
	}
	var last time.Time
	for _, a := range l.allocs {
		if a.End != nil && a.End.After(last) {
			last = *a.End
		}
	}
	month := billing.MonthOf(last, loc)
	from, to := month.Bounds(loc)
	res, err := billing.MonthBills(ctx, store, month.String(), last.Add(time.Hour))
	if err != nil {
		t.Fatalf("bills of %s: %v", month, err)
	}
	billed := map[int64]int64{}
	inBills := map[int64]int{}
	for _, b := range res.Bills {
		seen := map[int64]bool{}
		for _, line := range b.Lines {
			billed[line.TaskID] += line.NominalS
			if !seen[line.TaskID] {
				seen[line.TaskID] = true
				inBills[line.TaskID]++
			}
		}
	}
	checked := 0
	for _, tk := range l.tasks {
		if !isEnded(tk) || tk.End.Before(from) || !tk.End.Before(to) {
			continue
		}
		var held int64
		for _, a := range tk.allocs {
			s, e := maxTime(a.Start, from), minTime(*a.End, to)
			if e.After(s) {
				held += int64(e.Sub(s) / time.Second)
			}
		}
		if held == 0 {
			continue
		}
		checked++
		if inBills[tk.ID] != 1 {
			v.add("not billed once", "task %d is in %d bills of %s", tk.ID, inBills[tk.ID], month)
		}
		if billed[tk.ID] != held {
			v.add("not billed once", "task %d held %d card-seconds in %s and is billed %d", tk.ID, held, month, billed[tk.ID])
		}
	}
	if checked == 0 {
		v.add("not billed once", "no ended task held cards in %s", month)
	}
}

func isEnded(t *task) bool {
	for _, s := range ended {
		if t.State == s {
			return t.End != nil
		}
	}
	return false
}

// reruns counts the tasks with an attempt that ended in a rerun, and those of them placed
// again, for the log.
func (l *ledger) reruns() (rerun, again int) {
	for _, t := range l.tasks {
		if len(t.Reruns) > 0 {
			rerun++
			if t.Start != nil {
				again++
			}
		}
	}
	return rerun, again
}

// counts sums the tasks by state, for the log.
func (l *ledger) counts() string {
	n := map[string]int{}
	for _, t := range l.tasks {
		if strings.HasPrefix(t.Key, "proof-") {
			n[t.State]++
		}
	}
	return fmt.Sprint(n)
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
