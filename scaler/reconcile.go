package scaler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	kfleet "kashi/fleet"
	"kashi/models"
	"kashi/phrase"
)

// reconcile brings a pool's intents and its provider's machines into line, and returns the
// machines still booting: it lists the machines, reads the intents, decides with
// decideReconcile (pure) and applies the actions in order.
func (s *Scaler) reconcile(ctx context.Context, in *scaleInput, cp models.ConfiguredPool, prov kfleet.Provider, nodes []models.NodeGPUs, now time.Time) ([]BootingMachine, error) {
	listed, err := prov.List(ctx, cp.Name)
	if err != nil {
		return nil, fmt.Errorf("list machines: %w", err)
	}
	intents, err := s.store.Machines(ctx, cp.ID)
	if err != nil {
		return nil, err
	}
	rin := reconcileInput{Cluster: s.cfg.Cluster, Listed: listed, Intents: intents, NodeOf: make(map[string]int64),
		BootTimeout: PolicyOf(cp.Config).WithDefaults().BootTimeout, AdoptUnknown: cp.Config.AdoptUnknown, Now: now}
	hosts := make(map[int64]string, len(nodes))
	for _, n := range nodes {
		if n.MachineID != "" {
			rin.NodeOf[n.MachineID] = n.ID
		}
		hosts[n.ID] = n.Hostname
	}
	if rin.Gone, err = s.store.DeletedMachineIDs(ctx, unknownKeys(rin)); err != nil {
		return nil, err
	}
	for _, m := range ours(rin) {
		in.listed[m.IdempotencyKey] = m.ID
	}
	rc := reconciler{s: s, cp: cp, prov: prov, now: now, nodeOf: rin.NodeOf, hosts: hosts}
	var booting []BootingMachine
	for _, a := range decideReconcile(rin) {
		b, err := rc.apply(ctx, a)
		if err != nil {
			return nil, err
		}
		if b != nil {
			booting = append(booting, *b)
		}
	}
	return booting, nil
}

// reconcileInput is what decideReconcile looks at: one pool's machines as the provider lists
// them, its intents, the nodes by machine id or key, and which unknown keys belonged to
// deleted intents.
type reconcileInput struct {
	Cluster      string
	Listed       []kfleet.Machine
	Intents      []models.Machine
	NodeOf       map[string]int64
	Gone         map[string]bool
	BootTimeout  time.Duration
	AdoptUnknown bool
	Now          time.Time
}

// reconcileKind names what a reconcileAction does.
type reconcileKind int

const (
	// rBooting: the machine of an intent is still booting (nothing to do).
	rBooting reconcileKind = iota
	// rCreateAgain: re-send the Create of a pending intent whose machine is not listed.
	rCreateAgain
	// rLink: the intent's machine is listed: record its id, and mark the intent ready when
	// a node runs on it (else it boots).
	rLink
	// rVanished: a ready intent's machine is no longer listed: alert, act on nothing.
	rVanished
	// rDelete: delete a deleting intent's machine and mark the intent deleted.
	rDelete
	// rDrop: delete a machine that is none of ours to keep.
	rDrop
	// rAdopt: store an intent for a machine we did not know.
	rAdopt
)

// reconcileAction is one step of reconciling a pool.
type reconcileAction struct {
	Kind    reconcileKind
	Intent  models.Machine
	Machine kfleet.Machine
	// Reason and Why explain an rDrop; Orphan marks one that also raises an alert.
	Reason Reason
	Why    phrase.Phrase
	Orphan bool
	// KeyTaken (rAdopt): the machine's own key belongs to a deleted intent. NodeID: the node
	// running on the machine, if any (rLink, rAdopt).
	KeyTaken bool
	NodeID   *int64
}

// ours are the listed machines of this installation that are not being deleted.
func ours(in reconcileInput) []kfleet.Machine {
	var out []kfleet.Machine
	for _, m := range in.Listed {
		if m.Tags[kfleet.TagCluster] == in.Cluster && m.State != kfleet.StateDeleting {
			out = append(out, m)
		}
	}
	return out
}

// unknownKeys are the keys of our listed machines that no intent holds, sorted.
func unknownKeys(in reconcileInput) []string {
	live := make(map[string]bool, len(in.Intents))
	for _, im := range in.Intents {
		live[im.IdempotencyKey] = true
	}
	var out []string
	for _, m := range ours(in) {
		if !live[m.IdempotencyKey] && !slices.Contains(out, m.IdempotencyKey) {
			out = append(out, m.IdempotencyKey)
		}
	}
	slices.Sort(out)
	return out
}

// decideReconcile decides how to bring a pool's intents and machines into line. Our
// machines are those listed with this installation's cluster tag; a machine being deleted is
// ignored.
//
//   - A pending or creating intent is matched by key. Missing at the provider, it is created
//     again with the same key (the provider returns the machine if the first call made one),
//     unless its boot timeout has passed (DecideScale then gives it up). Once a node carries
//     its machine's id or key, the intent is ready; until then the machine boots.
//   - A ready intent missing at the provider raises an alert and is otherwise left alone: a
//     machine that may still run tasks is never acted on from an absence.
//   - A deleting intent has its machine deleted, then is marked deleted.
//   - Two machines under one key: all but the intent's are deleted.
//   - A machine under a key we have no live intent for is adopted when a node runs on it;
//     deleted when its intent was deleted (a leftover of a crash or a late create); else
//     adopted or deleted as the pool's AdoptUnknown says.
//
// It is pure: the same input gives the same actions, in intent order, then unknown keys in
// key order.
func decideReconcile(in reconcileInput) []reconcileAction {
	byKey := make(map[string][]kfleet.Machine)
	byID := make(map[string]kfleet.Machine)
	for _, m := range ours(in) {
		byKey[m.IdempotencyKey] = append(byKey[m.IdempotencyKey], m)
		byID[m.ID] = m
	}
	linked := func(m kfleet.Machine) *int64 { return nodeOn(in.NodeOf, m) }
	var out []reconcileAction
	claimed := make(map[string]bool)
	for _, im := range in.Intents {
		key := im.IdempotencyKey
		ms := byKey[key]
		if m, ok := byID[im.ProviderID]; ok && len(ms) == 0 {
			ms = []kfleet.Machine{m} // an adopted machine keeps its own key
		}
		m, dups := pickMachine(ms, im.ProviderID)
		if m != nil {
			claimed[m.ID] = true
		}
		for _, d := range dups {
			claimed[d.ID] = true
			out = append(out, reconcileAction{Kind: rDrop, Machine: d, Reason: ReasonDuplicateMachine, Why: phrase.New("second_machine", phrase.S(key))})
		}
		switch im.State {
		case models.MachinePending, models.MachineCreating:
			switch {
			case m == nil && in.Now.Sub(im.CreatedAt) > in.BootTimeout:
				out = append(out, reconcileAction{Kind: rBooting, Intent: im})
			case m == nil:
				out = append(out, reconcileAction{Kind: rCreateAgain, Intent: im})
			default:
				out = append(out, reconcileAction{Kind: rLink, Intent: im, Machine: *m, NodeID: linked(*m)})
			}
		case models.MachineReady:
			if m == nil {
				out = append(out, reconcileAction{Kind: rVanished, Intent: im})
			}
		case models.MachineDeleting:
			a := reconcileAction{Kind: rDelete, Intent: im}
			if m != nil {
				a.Machine = *m
			}
			out = append(out, a)
		}
	}
	for _, key := range unknownKeys(in) {
		for _, m := range byKey[key] {
			if claimed[m.ID] {
				continue
			}
			nodeID := linked(m)
			switch {
			case nodeID != nil:
				out = append(out, reconcileAction{Kind: rAdopt, Machine: m, KeyTaken: in.Gone[key], NodeID: nodeID})
			case in.Gone[key]:
				out = append(out, reconcileAction{Kind: rDrop, Machine: m, Reason: ReasonLeftoverMachine, Why: phrase.New("intent_deleted", phrase.S(key))})
			case in.AdoptUnknown:
				out = append(out, reconcileAction{Kind: rAdopt, Machine: m})
			default:
				out = append(out, reconcileAction{Kind: rDrop, Machine: m, Reason: ReasonUnknownMachine,
					Why: phrase.New("no_intent"), Orphan: true})
			}
		}
	}
	return out
}

// nodeOn is the node running on m (found by machine id or key), or nil.
func nodeOn(nodeOf map[string]int64, m kfleet.Machine) *int64 {
	if id, ok := nodeOf[m.ID]; ok {
		return &id
	}
	if id, ok := nodeOf[m.IdempotencyKey]; ok {
		return &id
	}
	return nil
}

// apply carries out one action and returns the machine it leaves booting, if any.
func (rc *reconciler) apply(ctx context.Context, a reconcileAction) (*BootingMachine, error) {
	s, cp, now := rc.s, rc.cp, rc.now
	im, key := a.Intent, a.Intent.IdempotencyKey
	booting := func(id string, failed bool) *BootingMachine {
		return &BootingMachine{Key: key, ID: id, CreatedAt: im.CreatedAt, Failed: failed}
	}
	switch a.Kind {
	case rBooting:
		return booting(im.ProviderID, false), nil
	case rCreateAgain:
		created, err := s.createAgain(ctx, rc.prov, cp, key, now)
		switch {
		case errors.Is(err, errDropped):
			return nil, nil
		case err != nil:
			// Still booting as far as the decision goes: tried again next tick, given up at
			// the boot timeout.
			s.alert(ctx, models.AlertInput{Kind: models.AlertScaleFailed, Subject: cp.Name, Pool: cp.Name,
				Code: "provider_error", Params: []string{cp.Name, err.Error()}}, now)
			return booting(im.ProviderID, false), nil
		}
		// The provider may return a machine the first call made, on which a node may run.
		return rc.link(ctx, im, created, nodeOn(rc.nodeOf, created))
	case rLink:
		return rc.link(ctx, im, a.Machine, a.NodeID)
	case rVanished:
		s.alert(ctx, models.AlertInput{Kind: models.AlertMachineVanished, Subject: cp.Name + "/" + key, Pool: cp.Name,
			NodeID: deref(im.NodeID), Severity: models.SeverityCritical, Code: "machine_vanished",
			Params: []string{cp.Name, im.ProviderID, key, rc.host(deref(im.NodeID))}}, now)
		// The machine is gone, and what ran on it with it: its tasks are rerun now rather
		// than once its node has been silent long enough to be given up.
		if im.NodeID != nil {
			lost, err := s.store.MachineGone(ctx, *im.NodeID, now)
			if err != nil {
				return nil, err
			}
			if lost != nil && len(lost.Tasks) > 0 {
				s.cfg.Logger.Info("machine gone: its node's tasks rerun or end", "pool", cp.Name, "machine", im.ProviderID,
					"node", lost.Hostname, "tasks", lost.Tasks)
			}
		}
	case rDelete:
		id := im.ProviderID
		if a.Machine.ID != "" {
			id = a.Machine.ID
		}
		return nil, s.deleteMachine(ctx, rc.prov, key, id, now)
	case rDrop:
		if err := rc.drop(ctx, a.Machine, a.Reason, a.Why); err != nil {
			return nil, err
		}
		if a.Orphan {
			s.alert(ctx, models.AlertInput{Kind: models.AlertOrphanDeleted, Subject: cp.Name + "/" + a.Machine.ID, Pool: cp.Name,
				Severity: models.SeverityInfo, Code: "orphan_deleted", Params: []string{cp.Name, a.Machine.ID, a.Machine.IdempotencyKey}}, now)
		}
	case rAdopt:
		if err := rc.adopt(ctx, a.Machine, a.KeyTaken, a.NodeID); err != nil {
			return nil, err
		}
		if a.NodeID == nil {
			return &BootingMachine{Key: rc.lastKey, ID: a.Machine.ID, CreatedAt: now, Failed: a.Machine.State == kfleet.StateFailed}, nil
		}
	}
	return nil, nil
}

// link records an intent's machine id and marks the intent ready when a node runs on the
// machine; otherwise the machine boots.
func (rc *reconciler) link(ctx context.Context, im models.Machine, m kfleet.Machine, nodeID *int64) (*BootingMachine, error) {
	key := im.IdempotencyKey
	if m.ID != im.ProviderID {
		if err := rc.s.store.SetMachineProviderID(ctx, key, m.ID); err != nil {
			return nil, err
		}
	}
	if nodeID != nil {
		return nil, rc.s.store.MarkMachineReady(ctx, key, *nodeID, rc.now)
	}
	return &BootingMachine{Key: key, ID: m.ID, CreatedAt: im.CreatedAt, Failed: m.State == kfleet.StateFailed}, nil
}

// errDropped says an intent was dropped because the provider is out of capacity.
var errDropped = errors.New("intent dropped: out of capacity")

// createAgain re-sends the Create of an intent whose machine is not listed. When the
// provider is out of capacity the intent is dropped, with an alert, and it returns
// errDropped (or the store's error); any other failure is returned as it is, and the intent
// stays pending.
func (s *Scaler) createAgain(ctx context.Context, prov kfleet.Provider, cp models.ConfiguredPool, key string, now time.Time) (kfleet.Machine, error) {
	m, err := prov.Create(ctx, kfleet.CreateRequest{Pool: cp.Name, Flavor: cp.Config.Flavor, Image: cp.Config.Image,
		IdempotencyKey: key, Tags: kfleet.Tags(s.cfg.Cluster, cp.Name, key)})
	switch {
	case errors.Is(err, kfleet.ErrCapacity):
		s.alert(ctx, models.AlertInput{Kind: models.AlertScaleFailed, Subject: cp.Name, Pool: cp.Name, Severity: models.SeverityCritical,
			Code: "machine_not_created", Params: []string{cp.Name, key, err.Error()}}, now)
		if err := s.store.MarkMachineDeleted(ctx, key, now); err != nil {
			return m, err
		}
		return m, errDropped
	case err != nil:
		return m, fmt.Errorf("create %s again: %w", key, err)
	}
	return m, nil
}

// pickMachine returns the machine that is the intent's (the one with its provider id, else
// the oldest) and the duplicates.
func pickMachine(ms []kfleet.Machine, providerID string) (*kfleet.Machine, []kfleet.Machine) {
	if len(ms) == 0 {
		return nil, nil
	}
	ms = slices.Clone(ms)
	slices.SortStableFunc(ms, func(a, b kfleet.Machine) int {
		if (a.ID == providerID) != (b.ID == providerID) {
			if a.ID == providerID {
				return -1
			}
			return 1
		}
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID, b.ID))
	})
	return &ms[0], ms[1:]
}

// reconciler applies reconcile's actions to one pool.
type reconciler struct {
	s      *Scaler
	cp     models.ConfiguredPool
	prov   kfleet.Provider
	now    time.Time
	nodeOf map[string]int64
	// hosts are the pool's nodes' hostnames by id: what people read for a node.
	hosts   map[int64]string
	lastKey string
}

// host is the hostname of node id, as messages name a node; "#id" for a node not listed.
func (rc *reconciler) host(id int64) string {
	if h := rc.hosts[id]; h != "" {
		return h
	}
	return "#" + strconv.FormatInt(id, 10)
}

// drop deletes a machine that is none of ours to keep, with an event.
func (rc *reconciler) drop(ctx context.Context, m kfleet.Machine, r Reason, why phrase.Phrase) error {
	if err := rc.prov.Delete(ctx, m.ID); err != nil {
		return fmt.Errorf("delete machine %s: %w", m.ID, err)
	}
	detail := phrase.Of(phrase.New("machine_deleted", phrase.S(m.ID)), why)
	ev := models.ScalingEvent{Kind: string(ActionDeleteMachine), Reason: string(r), MachineKey: m.IdempotencyKey,
		Detail: detail.Encode()}
	// The log is in English, whatever the installation's language.
	rc.s.cfg.Logger.Info("scaling", "pool", rc.cp.Name, "event", phrase.Locale{Lang: phrase.LangEN}.Say(detail))
	return rc.s.store.RecordScalingEvent(ctx, rc.cp.ID, ev, rc.now)
}

// adopt stores an intent for a machine we did not know, under its key when that is free,
// else under "adopted-<id>"; with a node, the intent is ready at once.
func (rc *reconciler) adopt(ctx context.Context, m kfleet.Machine, keyTaken bool, nodeID *int64) error {
	key := m.IdempotencyKey
	if keyTaken || !kfleet.ValidKey(key) {
		key = adoptedKey(m.ID)
	}
	rc.lastKey = key
	_, err := rc.s.store.AdoptMachine(ctx, rc.cp.ID, key, m.ID, rc.now)
	if errors.Is(err, models.ErrConflict) && nodeID == nil {
		// Adopted once, and that intent deleted since: a leftover.
		return rc.drop(ctx, m, ReasonLeftoverMachine, phrase.New("adopted_intent_deleted", phrase.S(key)))
	}
	if err != nil {
		return err
	}
	if nodeID != nil {
		if err := rc.s.store.MarkMachineReady(ctx, key, *nodeID, rc.now); err != nil {
			return err
		}
	}
	ev := models.ScalingEvent{Kind: string(ActionAdopt), Reason: string(ReasonUnknownMachine), MachineKey: key,
		Detail: phrase.Of(phrase.New("machine_adopted", phrase.S(m.ID), phrase.S(m.IdempotencyKey))).Encode()}
	return rc.s.store.RecordScalingEvent(ctx, rc.cp.ID, ev, rc.now)
}

// adoptedKey is the key of an adopted machine whose own key is unusable: "adopted-" and
// the provider's id, cut to what a key may hold. It is the same at every tick, so an
// adoption is never stored twice.
func adoptedKey(id string) string {
	clean := strings.Map(func(r rune) rune {
		if r < 128 && (r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z') {
			return r
		}
		return '_'
	}, id)
	return "adopted-" + clean[:min(len(clean), 56)]
}

func deref(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}
