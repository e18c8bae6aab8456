package demo

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"

	"kashi/agent/simgpu"
	"kashi/billing"
	"kashi/models"
	"kashi/replay"
)

// HistoryStore is what FillHistory needs of the store.
type HistoryStore interface {
	billing.Issuer
	ConfiguredPools(ctx context.Context) ([]models.ConfiguredPool, error)
	ImportHistory(ctx context.Context, h models.History) error
	PoolConfigVersions(ctx context.Context, name string) ([]models.PoolPolicyVersion, error)
	SetReclaimOverride(ctx context.Context, actor string, projectID int64, o models.ReclaimOverride, now time.Time) error
	Thresholds() models.Thresholds
}

// HistoryStats says what FillHistory stored.
type HistoryStats struct {
	// Month is the past month issued, YYYY-MM.
	Month         string
	Tasks, Bills  int
	Nodes         int
	CardHours     int64
	RollupBuckets int
}

// sampleEvery is how often the past's cards are read, for their rollups: twice a bucket.
const sampleEvery = 150

// FillHistory gives a fresh demo its past, so that a newcomer sees bills, an issued month and
// a weekly report at once: the demo's task stream over the previous month (in the billing
// time zone), replayed through the production scheduler and scaling decisions (package
// replay) on the configured pools, stored as ended tasks, their cards' allocations and
// rollups of what the cards did by each task's workload shape; then the previous month's
// bills are issued through billing.Issue. Tasks still running at now are left out (the live
// demo runs the present); the pools scale by the settings of each day (pastPools); idle
// holders are reclaimed as the pools' idle reclaim would, under
// the project's override from its change in the middle of the month (history_changes.go).
// It is deterministic for a seed.
func FillHistory(ctx context.Context, st HistoryStore, now time.Time, seed uint64) (HistoryStats, error) {
	loc, err := billing.Location(ctx, st)
	if err != nil {
		return HistoryStats{}, err
	}
	l := now.In(loc)
	from := time.Date(l.Year(), l.Month(), 1, 0, 0, 0, 0, loc).AddDate(0, -1, 0)
	stats := HistoryStats{Month: from.Format("2006-01")}
	cps, err := st.ConfiguredPools(ctx)
	if err != nil {
		return stats, err
	}
	rng := rand.New(rand.NewPCG(seed, 0x70617374))
	to := from.AddDate(0, 1, 0)
	if to.After(now) {
		to = now
	}
	// Scaling decisions every 5 minutes of the past: a month replays within a second or two.
	fleet := replay.Config{ScaleInterval: 5 * time.Minute}
	if fleet.Pools, err = pastPools(ctx, st, cps, from, to); err != nil {
		return stats, err
	}
	reclaim := newPastReclaim(from)
	if err := recordReclaimChange(ctx, st, reclaim); err != nil {
		return stats, err
	}
	tasks := pastStream(rng, from, to, reclaim)
	tr := &replay.Trace{Skipped: map[string]int{}}
	for i, t := range tasks {
		tr.Jobs = append(tr.Jobs, replay.Job{ID: strconv.Itoa(i), Row: i + 1, Submit: t.submit.Unix(),
			Duration: int64(t.held / time.Second), GPUs: t.body.GPUs, Group: t.body.Project, Spec: t.body.Spec})
	}
	res, err := replay.Run(tr, replay.Options{Fleet: fleet})
	if err != nil {
		return stats, fmt.Errorf("demo: replay the past: %w", err)
	}
	h := pastHistory(res, tasks, cps, st.Thresholds(), rng, now)
	if err := st.ImportHistory(ctx, h); err != nil {
		return stats, err
	}
	stats.Tasks, stats.Nodes, stats.RollupBuckets = len(h.Tasks), len(h.Nodes), len(h.Rollups)
	for _, t := range h.Tasks {
		stats.CardHours += int64(t.GPUs) * int64(t.EndedAt.Sub(t.StartedAt)) / int64(time.Hour)
	}
	ps, err := st.Projects(ctx)
	if err != nil {
		return stats, err
	}
	for _, p := range ps {
		_, err := billing.Issue(ctx, st, p.ID, stats.Month, "demo", now)
		switch {
		case err == nil:
			stats.Bills++
		case !errors.Is(err, models.ErrConflict): // issued already: kept as it was
			return stats, fmt.Errorf("demo: issue %s of %s: %w", stats.Month, p.Name, err)
		}
	}
	return stats, nil
}

// pastTask is one task of the past's stream: drawn as the live stream draws, submitted at
// submit, holding its cards for held (its run, or until idle reclaim stopped it).
type pastTask struct {
	drawn
	submit    time.Time
	held      time.Duration
	reclaimed bool
}

// pastStream draws the task stream over [from, to) at the live stream's hourly rates, idle
// holders reclaimed as reclaim says.
func pastStream(rng *rand.Rand, from, to time.Time, reclaim pastReclaim) []pastTask {
	var out []pastTask
	for hour := from.Truncate(time.Hour); hour.Before(to); hour = hour.Add(time.Hour) {
		for n := poisson(rng, arrivalsPerHour[hour.In(shanghai).Hour()]); n > 0; n-- {
			t := pastTask{drawn: randomTask(rng), submit: hour.Add(time.Duration(rng.Int64N(int64(time.Hour)))).Truncate(time.Second)}
			t.held = t.run
			if after := reclaim.limit(t.body.Project, t.submit); t.shape == simgpu.IdleHolder && t.run > after {
				t.held, t.reclaimed = after, true
			}
			if !t.submit.Before(from) && t.submit.Before(to) {
				out = append(out, t)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b pastTask) int { return a.submit.Compare(b.submit) })
	return out
}

// pastHistory turns the replay of tasks into the store's history: its machines as removed
// nodes, the scaling actions with their reasons, the tasks that ended by now with their cards, and a rollup per card and 5 minutes
// read from each task's shape.
func pastHistory(res *replay.Result, tasks []pastTask, cps []models.ConfiguredPool, th models.Thresholds, rng *rand.Rand, now time.Time) models.History {
	var h models.History
	memMiB := make(map[string]int64)
	for _, p := range pools {
		memMiB[p.name] = int64(p.gpu.MemoryMB)
	}
	gpn := make(map[string]int)
	for _, cp := range cps {
		gpn[cp.Name] = cp.Config.GPUsPerNode
	}
	nodeIdx := make(map[int64]int)
	// edge finds a card's rollup of a task's first or last 5-minute bucket: a card's tasks
	// may share those.
	type cardBucket struct {
		card   models.HistoryCard
		bucket int64
	}
	edge := make(map[cardBucket]int)
	for _, n := range res.Nodes() {
		until := time.Unix(n.Until, 0)
		if n.Until == 0 || until.After(now) {
			until = now
		}
		host := fmt.Sprintf("%s-past-%03d", n.Pool, n.ID)
		hn := models.HistoryNode{Pool: n.Pool, Hostname: host, From: time.Unix(n.Since, 0), To: until}
		for i := range gpn[n.Pool] {
			hn.GPUs = append(hn.GPUs, models.GPUInfo{UUID: fmt.Sprintf("GPU-%s-%d", host, i), Index: i, MemoryTotalMiB: memMiB[n.Pool]})
		}
		nodeIdx[n.ID] = len(h.Nodes)
		h.Nodes = append(h.Nodes, hn)
	}
	for _, e := range res.ScaleEvents {
		if e.AtS > now.Unix() {
			continue
		}
		node := -1
		if i, ok := nodeIdx[e.NodeID]; ok && e.NodeID != 0 {
			node = i
		}
		h.Events = append(h.Events, models.HistoryEvent{Pool: e.Pool, At: time.Unix(e.AtS, 0), Kind: e.Kind, Reason: e.Reason,
			FromSize: e.From, To: e.To, Node: node})
	}
	for _, p := range res.Placements() {
		k, _ := strconv.Atoi(p.JobID)
		t := tasks[k]
		if !p.Started || p.End > now.Unix() {
			continue
		}
		ht := models.HistoryTask{NewTask: models.NewTask{Project: t.body.Project, Name: t.body.Name, Owner: t.body.Owner,
			GPUs: t.body.GPUs, Spec: t.body.Spec, Queue: t.body.Queue, Priority: t.body.Priority, EstGPUHours: t.body.EstGPUHours,
			MaxRuntime: time.Duration(t.body.MaxRuntimeS) * time.Second, Command: t.body.Command, Deferrable: t.body.Deferrable},
			State: models.TaskSucceeded, Reason: "exited 0", SubmittedAt: t.submit,
			StartedAt: time.Unix(p.Start, 0), EndedAt: time.Unix(p.End, 0)}
		switch {
		case t.reclaimed:
			ht.State, ht.Reason, ht.ExitCode = models.TaskReclaimed, "idle cards: no answer to the idle notice", 143
		case t.exit != 0:
			ht.State, ht.Reason, ht.ExitCode = models.TaskFailed, fmt.Sprintf("exited %d", t.exit), t.exit
		}
		for _, c := range p.Cards {
			id, idx := replay.CardNode(c)
			card := models.HistoryCard{Node: nodeIdx[id], GPU: idx}
			ht.Cards = append(ht.Cards, card)
			rs := cardRollups(card, t, p.Start, p.End, memMiB[h.Nodes[card.Node].Pool], th, rng)
			for k, r := range rs {
				if k > 0 && k < len(rs)-1 {
					h.Rollups = append(h.Rollups, r)
					continue
				}
				key := cardBucket{card, r.Bucket}
				if i, ok := edge[key]; ok {
					h.Rollups[i].Add(r.GPURollup)
					continue
				}
				edge[key] = len(h.Rollups)
				h.Rollups = append(h.Rollups, r)
			}
		}
		h.Tasks = append(h.Tasks, ht)
	}
	return h
}

// cardRollups reads a card running t over [start, end) (Unix seconds) every sampleEvery
// seconds and sums the readings into 5-minute rollups classified by th.
func cardRollups(card models.HistoryCard, t pastTask, start, end, totalMiB int64, th models.Thresholds, rng *rand.Rand) []models.HistoryRollup {
	var out []models.HistoryRollup
	run := max(int64(t.run/time.Second), 1)
	idleMiB := 300 + rng.Int64N(200)
	first := start + (sampleEvery-start%sampleEvery)%sampleEvery
	for ts := first; ts < end; ts += sampleEvery {
		bucket := ts - ts%models.Rollup5m
		if len(out) == 0 || out[len(out)-1].Bucket != bucket {
			out = append(out, models.HistoryRollup{Node: card.Node, GPU: card.GPU,
				GPURollup: models.GPURollup{Bucket: bucket, IdlePct: th.IdleUtilPct, ActivePct: th.ActiveUtilPct}})
		}
		r := &out[len(out)-1].GPURollup
		util, mem := t.shape.Usage(float64(ts-start)/float64(run), rng, idleMiB, totalMiB)
		r.N++
		r.UtilSum += int64(util)
		r.UtilMax = max(r.UtilMax, util)
		r.MemSum += mem
		r.MemMax = max(r.MemMax, mem)
		if util < th.IdleUtilPct {
			r.NIdle++
		}
		if util >= th.ActiveUtilPct {
			r.NActive++
		}
	}
	return out
}
