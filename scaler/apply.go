package scaler

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	kfleet "kashi/fleet"
	"kashi/models"
	"kashi/scheduler"
)

// Store is what the scaling loop needs of models.Store.
type Store interface {
	ConfiguredPools(ctx context.Context) ([]models.ConfiguredPool, error)
	Nodes(ctx context.Context) ([]models.NodeGPUs, error)
	ActiveTasks(ctx context.Context) ([]models.TaskRow, error)
	OpenAllocations(ctx context.Context) ([]models.Allocation, error)
	Machines(ctx context.Context, poolID int64) ([]models.Machine, error)
	DeletedMachineIDs(ctx context.Context, ids []string) (map[string]bool, error)
	NodeScaleStates(ctx context.Context) (map[int64]models.NodeScaleState, error)
	PoolScaleStates(ctx context.Context) (map[int64]models.PoolScaleState, error)
	PoolMemory(ctx context.Context, poolID int64, from, to time.Time, bucket time.Duration) ([]models.MemoryPoint, error)
	QueuedSince(ctx context.Context) (map[int64]time.Time, error)
	Reservations(ctx context.Context, from, to time.Time) ([]models.ReservationRow, error)
	TaskReclaims(ctx context.Context) (map[int64]models.TaskReclaim, error)
	ReclaimOverrides(ctx context.Context) (map[int64]models.ReclaimOverride, error)

	RecordScaleUp(ctx context.Context, poolID int64, keys []string, ev models.ScalingEvent, now time.Time) error
	SetMachineProviderID(ctx context.Context, key, providerID string) error
	MarkMachineReady(ctx context.Context, key string, nodeID int64, now time.Time) error
	MarkMachineDeleting(ctx context.Context, key, reason string, now time.Time) error
	RecordBootFailure(ctx context.Context, f models.BootFailure, now time.Time) (models.PoolScaleState, bool, error)
	MarkMachineDeleted(ctx context.Context, key string, now time.Time) error
	AdoptMachine(ctx context.Context, poolID int64, key, providerID string, now time.Time) (models.Machine, error)
	DrainNode(ctx context.Context, nodeID int64, ev models.ScalingEvent, now time.Time) error
	UndrainNode(ctx context.Context, nodeID int64, ev models.ScalingEvent, now time.Time) error
	RemoveNode(ctx context.Context, nodeID int64, ev models.ScalingEvent, now time.Time) (models.RemovedNode, error)
	RecordScalingEvent(ctx context.Context, poolID int64, ev models.ScalingEvent, now time.Time) error
	SetUnneeded(ctx context.Context, since map[int64]time.Time) error
	SetPoolScaleStatus(ctx context.Context, poolID int64, size, desired int, skips []models.PoolSkip, now time.Time) error
	SetPoolAtMaxSince(ctx context.Context, poolID int64, since *time.Time, now time.Time) error
	SetPoolPrice(ctx context.Context, poolID, fen int64, source string, now time.Time) error
	RecordPoolSize(ctx context.Context, poolID int64, size, desired, demandGPUs int, now time.Time) error
	RaiseAlert(ctx context.Context, in models.AlertInput, now time.Time) (models.Alert, bool, error)
	ResolveAlert(ctx context.Context, kind, subject string, now time.Time) error
	SetReclaimNotice(ctx context.Context, taskID int64, now time.Time) error
	ClearReclaimNotice(ctx context.Context, taskID int64) error
	ReclaimTask(ctx context.Context, taskID int64, reason string, now time.Time) error
	MachineGone(ctx context.Context, nodeID int64, now time.Time) (*models.LostNode, error)
}

// QueueFunc returns the queue's snapshot and plan at now; the scaler reads the demand from
// the plan's waiting tasks. Loop.QueuePlan is one.
type QueueFunc func(ctx context.Context, now time.Time) (scheduler.Snapshot, scheduler.Plan, error)

// Config configures a Scaler.
type Config struct {
	// Providers maps a pool's provider name (models.Pool.Provider) to its provider; pools
	// of other providers are not scaled.
	Providers map[string]kfleet.Provider
	// Cluster is this installation's kfleet.TagCluster value; machines tagged otherwise are
	// someone else's. Empty means "kashi".
	Cluster string
	// Queue gives the demand; nil means none.
	Queue QueueFunc
	// MemoryBucket is the width of the memory history's samples; zero means a minute.
	MemoryBucket time.Duration
	// NodeStaleAfter: a ready node silent this long counts as lost; zero means 2 minutes.
	NodeStaleAfter time.Duration
	// NewKey makes the idempotency key of a new machine slot; nil means a random one.
	NewKey func(pool string) string
	// Cordon marks a Kubernetes pool's node (by its name in the cluster, the node's
	// hostname) unschedulable, through package kube's controller of the pool, before the loop
	// releases its machine; nil does nothing.
	Cordon func(ctx context.Context, pool, node string) error
	// OnAction is called after each action is applied (chat notices, metrics); may be nil.
	OnAction func(Action)
	Now      func() time.Time
	Logger   *slog.Logger
	// Location is the zone of the times that notices write (the billing time zone); nil is
	// UTC.
	Location *time.Location
}

// Scaler is the scaling and release loop: each tick it reconciles every managed pool with
// its provider, decides with DecideScale and applies the plan.
type Scaler struct {
	store Store
	cfg   Config
}

// New returns a scaler over store.
func New(store Store, cfg Config) *Scaler {
	if cfg.Cluster == "" {
		cfg.Cluster = "kashi"
	}
	if cfg.MemoryBucket <= 0 {
		cfg.MemoryBucket = time.Minute
	}
	if cfg.NodeStaleAfter <= 0 {
		cfg.NodeStaleAfter = 2 * time.Minute
	}
	if cfg.NewKey == nil {
		cfg.NewKey = RandomKey
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Scaler{store: store, cfg: cfg}
}

// Tick is one RunOnce at the clock's now, as package loop calls it.
func (s *Scaler) Tick(ctx context.Context) error {
	_, err := s.RunOnce(ctx, s.cfg.Now())
	return err
}

// RandomKey is a fresh idempotency key for a machine of pool: the pool's name cut to what a
// key may hold, and 16 random hex digits.
func RandomKey(pool string) string {
	var b [8]byte
	rand.Read(b[:])
	prefix := strings.Map(func(r rune) rune {
		if r < 128 && (r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z') {
			return r
		}
		return -1
	}, pool)
	prefix = strings.TrimLeft(prefix, "-_.")
	if len(prefix) > 40 {
		prefix = prefix[:40]
	}
	if prefix == "" {
		prefix = "m"
	}
	return prefix + "-" + hex.EncodeToString(b[:])
}

// RunOnce is one tick at now, in four phases:
//  1. reconcile: each managed pool's intents against its provider's List (see reconcile);
//  2. snapshot: nodes, their tasks, booting machines, demand, memory, timers;
//  3. decide: DecideScale (pure);
//  4. apply and record: each action in order, then the unneeded marks and each pool's size,
//     desired size and reasons not to act.
//
// A pool whose provider cannot be listed is left out of the tick (and an alert raised); the
// others go on. The error joins what went wrong.
func (s *Scaler) RunOnce(ctx context.Context, now time.Time) (Plan, error) {
	in, errs := s.snapshot(ctx, now)
	if in == nil {
		return Plan{}, errors.Join(errs...)
	}
	plan := DecideScale(in.snap, now)
	for _, a := range plan.Actions {
		done, err := s.apply(ctx, in, a, now)
		if err != nil {
			if ctx.Err() != nil {
				return plan, err
			}
			errs = append(errs, err)
			continue
		}
		if done {
			countAction(a)
		}
		if done && s.cfg.OnAction != nil {
			s.cfg.OnAction(a)
		}
	}
	if err := s.record(ctx, in, plan, now); err != nil {
		errs = append(errs, err)
	}
	return plan, errors.Join(errs...)
}

// record persists the unneeded marks (keeping those of pools left out of the tick) and each
// pool's outcome and size sample.
func (s *Scaler) record(ctx context.Context, in *scaleInput, plan Plan, now time.Time) error {
	marks := make(map[int64]time.Time, len(plan.Unneeded))
	for id, st := range in.nodeStates {
		if st.UnneededSince != nil && !in.decided[id] {
			marks[id] = *st.UnneededSince
		}
	}
	for id, t := range plan.Unneeded {
		marks[id] = t
	}
	if err := s.store.SetUnneeded(ctx, marks); err != nil {
		return err
	}
	skips := make(map[string][]models.PoolSkip)
	for _, sk := range plan.Skips {
		skips[sk.Pool] = append(skips[sk.Pool], models.PoolSkip{Reason: string(sk.Reason), Detail: sk.Detail.Encode()})
	}
	for _, sz := range plan.Sizes {
		p := in.pools[sz.Pool]
		if err := s.store.SetPoolScaleStatus(ctx, p.ID, sz.Size, sz.Desired, skips[sz.Pool], now); err != nil {
			return err
		}
		fen, source := s.price(ctx, in.providers[sz.Pool], p)
		if err := s.store.SetPoolPrice(ctx, p.ID, fen, source, now); err != nil {
			return err
		}
		if err := s.store.RecordPoolSize(ctx, p.ID, sz.Size, sz.Desired, sz.DemandGPUs, now); err != nil {
			return err
		}
		if err := s.recordAtMax(ctx, in, p, sz, now); err != nil {
			return err
		}
	}
	return nil
}

// recordAtMax keeps since when the pool has been at its maximum with demand waiting, raises
// the alert while that lasts too long and resolves it when the pool is no longer so.
func (s *Scaler) recordAtMax(ctx context.Context, in *scaleInput, p models.ConfiguredPool, sz PoolSize, now time.Time) error {
	var was time.Time
	for _, sp := range in.snap.Pools {
		if sp.Name == sz.Pool {
			was = sp.AtMaxSince
		}
	}
	switch {
	case sz.AtMaxSince.IsZero() && was.IsZero():
		return nil
	case sz.AtMaxSince.IsZero():
		if err := s.store.SetPoolAtMaxSince(ctx, p.ID, nil, now); err != nil {
			return err
		}
		return s.store.ResolveAlert(ctx, models.AlertPoolAtMax, p.Name, now)
	case !sz.AtMaxSince.Equal(was):
		if err := s.store.SetPoolAtMaxSince(ctx, p.ID, &sz.AtMaxSince, now); err != nil {
			return err
		}
	}
	if sz.AtMaxAlert {
		s.alert(ctx, models.AlertInput{Kind: models.AlertPoolAtMax, Subject: p.Name, Pool: p.Name, Code: "pool_at_max",
			Params: []string{p.Name, strconv.Itoa(sz.Size), fmtDur(now.Sub(sz.AtMaxSince)), strconv.Itoa(sz.DemandGPUs)}}, now)
	}
	return nil
}

// apply carries out one action. It reports false, nil for an action the state no longer
// allows (the next tick decides again).
func (s *Scaler) apply(ctx context.Context, in *scaleInput, a Action, now time.Time) (bool, error) {
	ev := models.ScalingEvent{Kind: string(a.Kind), FromSize: a.From, ToSize: a.To, Reason: string(a.Reason),
		Detail: a.Detail.Encode(), MachineKey: a.MachineKey}
	p := in.pools[a.Pool]
	var err error
	switch a.Kind {
	case ActionScaleUp:
		err = s.scaleUp(ctx, in, p, a, ev, now)
	case ActionDrain:
		err = s.store.DrainNode(ctx, a.NodeID, ev, now)
	case ActionUndrain:
		err = s.store.UndrainNode(ctx, a.NodeID, ev, now)
	case ActionRemove:
		var rm models.RemovedNode
		if err = s.cordon(ctx, p, a.NodeID); err != nil {
			break
		}
		if rm, err = s.store.RemoveNode(ctx, a.NodeID, ev, now); err == nil {
			err = s.deleteMachine(ctx, in.providers[a.Pool], rm.Key, rm.ProviderID, now)
		}
	case ActionDeleteMachine:
		err = s.deleteBooting(ctx, in, p, a, ev, now)
	case ActionIdleNotice:
		err = s.store.SetReclaimNotice(ctx, a.TaskID, now)
	case ActionClearNotice:
		err = s.store.ClearReclaimNotice(ctx, a.TaskID)
	case ActionReclaim:
		err = s.store.ReclaimTask(ctx, a.TaskID, a.Detail.Encode(), now)
	}
	if errors.Is(err, models.ErrConflict) {
		// The state moved since the snapshot (a task started on the node, the task ended).
		s.cfg.Logger.Info("scaling action skipped", "action", a.String(), "why", err)
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("scheduler: %s: %w", a.String(), err)
	}
	s.cfg.Logger.Info("scaling", "action", a.String())
	return true, nil
}

// scaleUp stores one intent per new machine, then asks the provider for each. A capacity
// error drops the intents not yet served and raises an alert; any other error leaves the
// intent pending for the next tick's reconcile.
func (s *Scaler) scaleUp(ctx context.Context, in *scaleInput, p models.ConfiguredPool, a Action, ev models.ScalingEvent, now time.Time) error {
	keys := make([]string, a.Count)
	for i := range keys {
		keys[i] = s.cfg.NewKey(p.Name)
	}
	prov := in.providers[p.Name]
	fen, _ := s.price(ctx, prov, p)
	ev.HourlyCostFen = fen * int64(a.Count)
	if err := s.store.RecordScaleUp(ctx, p.ID, keys, ev, now); err != nil {
		return err
	}
	for i, key := range keys {
		err := s.create(ctx, prov, p, key)
		switch {
		case err == nil:
			continue
		case errors.Is(err, kfleet.ErrCapacity):
			for _, k := range keys[i:] {
				if err := s.store.MarkMachineDeleted(ctx, k, now); err != nil {
					return err
				}
			}
			s.alert(ctx, models.AlertInput{Kind: models.AlertScaleFailed, Subject: p.Name, Pool: p.Name, Severity: models.SeverityCritical,
				Code: "machines_not_created", Params: []string{p.Name, strconv.Itoa(len(keys) - i), strconv.Itoa(len(keys)), err.Error()}}, now)
			return nil
		default:
			s.alert(ctx, models.AlertInput{Kind: models.AlertScaleFailed, Subject: p.Name, Pool: p.Name, Code: "create_retried",
				Params: []string{p.Name, key, err.Error()}}, now)
			return err
		}
	}
	// Every machine was asked for: an earlier failure of the pool is over.
	return s.store.ResolveAlert(ctx, models.AlertScaleFailed, p.Name, now)
}

// price is the list price of one of the pool's machines per hour, in fen, and where it came
// from: the provider's quote when it gives one, else the pool's settings; 0 and "" when
// neither knows it.
func (s *Scaler) price(ctx context.Context, prov kfleet.Provider, p models.ConfiguredPool) (int64, string) {
	if pr, ok := prov.(kfleet.Pricer); ok {
		fen, err := pr.HourlyPrice(ctx, kfleet.CreateRequest{Pool: p.Name, Flavor: p.Config.Flavor, Image: p.Config.Image})
		if err == nil {
			return fen, models.PriceFromProvider
		}
		s.cfg.Logger.Debug("no price quoted", "pool", p.Name, "err", err)
	}
	if p.Config.HourlyPriceFen > 0 {
		return p.Config.HourlyPriceFen, models.PriceFromSettings
	}
	return 0, ""
}

// create asks the provider for the machine of key and records its id.
func (s *Scaler) create(ctx context.Context, prov kfleet.Provider, p models.ConfiguredPool, key string) error {
	m, err := prov.Create(ctx, kfleet.CreateRequest{Pool: p.Name, Flavor: p.Config.Flavor, Image: p.Config.Image,
		IdempotencyKey: key, Tags: kfleet.Tags(s.cfg.Cluster, p.Name, key)})
	if err != nil {
		return err
	}
	err = s.store.SetMachineProviderID(ctx, key, m.ID)
	if errors.Is(err, models.ErrConflict) {
		// The intent was given up meanwhile (another path deleted it): delete the machine.
		return s.deleteMachine(ctx, prov, "", m.ID, time.Time{})
	}
	return err
}

// deleteBooting gives up a machine still booting (it did not boot in time, it failed, or the
// pool is over its maximum): the intent becomes deleting and any alert is raised before the
// provider is asked.
func (s *Scaler) deleteBooting(ctx context.Context, in *scaleInput, p models.ConfiguredPool, a Action, ev models.ScalingEvent, now time.Time) error {
	switch a.Reason {
	case ReasonBootTimeout, ReasonMachineFailed:
		if err := s.bootFailed(ctx, p, a, now); err != nil {
			return err
		}
	default:
		if err := s.store.MarkMachineDeleting(ctx, a.MachineKey, a.Detail.Encode(), now); err != nil {
			return err
		}
	}
	if err := s.store.RecordScalingEvent(ctx, p.ID, ev, now); err != nil {
		return err
	}
	id := a.MachineID
	if id == "" {
		id = in.listed[a.MachineKey]
	}
	return s.deleteMachine(ctx, in.providers[p.Name], a.MachineKey, id, now)
}

// bootFailed gives up a machine that did not boot and counts the failure against its pool
// (models.Store.RecordBootFailure), then raises the pool's boot alert, which stays one open
// alert per pool counted at each failure, and, when this failure stops the pool, the
// critical alert that the pool fails until an admin resumes it.
func (s *Scaler) bootFailed(ctx context.Context, p models.ConfiguredPool, a Action, now time.Time) error {
	pol := PolicyOf(p.Config).WithDefaults()
	st, stopped, err := s.store.RecordBootFailure(ctx, models.BootFailure{PoolID: p.ID, Key: a.MachineKey,
		Reason: string(a.Reason), Detail: a.Detail.Encode(), Limit: pol.BootFailureLimit}, now)
	if err != nil {
		return err
	}
	code := "boot_timeout"
	if a.Reason == ReasonMachineFailed {
		code = "machine_failed"
	}
	s.alert(ctx, models.AlertInput{Kind: models.AlertBootTimeout, Subject: p.Name, Pool: p.Name, Code: code,
		Params: []string{p.Name, a.MachineKey}}, now)
	if stopped {
		s.alert(ctx, models.AlertInput{Kind: models.AlertPoolFailing, Subject: p.Name, Pool: p.Name, Severity: models.SeverityCritical,
			Code: "pool_failing", Params: []string{p.Name, strconv.Itoa(st.BootFailures)}}, now)
	}
	return nil
}

// deleteMachine deletes the provider's machine id (when known) and marks the intent key
// (when any) deleted.
func (s *Scaler) deleteMachine(ctx context.Context, prov kfleet.Provider, key, id string, now time.Time) error {
	if id != "" && prov != nil {
		if err := prov.Delete(ctx, id); err != nil {
			return err
		}
	}
	if key == "" {
		return nil
	}
	return s.store.MarkMachineDeleted(ctx, key, now)
}

// alert raises an alert; a failure to store it is logged, not returned.
func (s *Scaler) alert(ctx context.Context, in models.AlertInput, now time.Time) {
	if _, _, err := s.store.RaiseAlert(ctx, in, now); err != nil {
		s.cfg.Logger.Error("raise alert", "kind", in.Kind, "subject", in.Subject, "err", err)
	}
}
