package scaler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	kfleet "kashi/fleet"
	"kashi/models"
)

// reconcile brings a pool's intents and its provider's machines into line, and returns the
// machines still booting. Our machines are those the provider lists with this installation's
// cluster tag; a machine being deleted is ignored.
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
func (s *Scaler) reconcile(ctx context.Context, in *scaleInput, cp models.ConfiguredPool, prov kfleet.Provider, nodes []models.NodeGPUs, now time.Time) ([]BootingMachine, error) {
	listed, err := prov.List(ctx, cp.Name)
	if err != nil {
		return nil, fmt.Errorf("list machines: %w", err)
	}
	intents, err := s.store.Machines(ctx, cp.ID)
	if err != nil {
		return nil, err
	}
	byKey := make(map[string][]kfleet.Machine)
	byID := make(map[string]kfleet.Machine)
	for _, m := range listed {
		if m.Tags[kfleet.TagCluster] != s.cfg.Cluster || m.State == kfleet.StateDeleting {
			continue
		}
		byKey[m.IdempotencyKey] = append(byKey[m.IdempotencyKey], m)
		byID[m.ID] = m
		in.listed[m.IdempotencyKey] = m.ID
	}
	claimed := make(map[string]bool)
	nodeOf := make(map[string]int64)
	for _, n := range nodes {
		if n.MachineID != "" {
			nodeOf[n.MachineID] = n.ID
		}
	}
	linked := func(m kfleet.Machine) (int64, bool) {
		if id, ok := nodeOf[m.ID]; ok {
			return id, true
		}
		id, ok := nodeOf[m.IdempotencyKey]
		return id, ok
	}
	rc := reconciler{s: s, cp: cp, prov: prov, now: now}
	bootTimeout := PolicyOf(cp.Config).WithDefaults().BootTimeout
	var booting []BootingMachine
	live := make(map[string]bool, len(intents))
	for _, im := range intents {
		key := im.IdempotencyKey
		live[key] = true
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
			if err := rc.drop(ctx, d, ReasonDuplicateMachine, "a second machine under key "+key); err != nil {
				return nil, err
			}
		}
		switch im.State {
		case models.MachinePending, models.MachineCreating:
			if m == nil {
				if now.Sub(im.CreatedAt) > bootTimeout {
					booting = append(booting, BootingMachine{Key: key, ID: im.ProviderID, CreatedAt: im.CreatedAt})
					continue
				}
				created, err := s.createAgain(ctx, prov, cp, key, now)
				switch {
				case errors.Is(err, errDropped):
					continue
				case err != nil:
					// Still booting as far as the decision goes: tried again next tick, given
					// up at the boot timeout.
					s.alert(ctx, models.AlertScaleFailed, cp.Name, fmt.Sprintf("pool %s: %v", cp.Name, err), now)
					booting = append(booting, BootingMachine{Key: key, ID: im.ProviderID, CreatedAt: im.CreatedAt})
					continue
				}
				m = &created
			}
			if m.ID != im.ProviderID {
				if err := s.store.SetMachineProviderID(ctx, key, m.ID); err != nil {
					return nil, err
				}
			}
			if nodeID, ok := linked(*m); ok {
				if err := s.store.MarkMachineReady(ctx, key, nodeID, now); err != nil {
					return nil, err
				}
				continue
			}
			booting = append(booting, BootingMachine{Key: key, ID: m.ID, CreatedAt: im.CreatedAt, Failed: m.State == kfleet.StateFailed})
		case models.MachineReady:
			if m == nil {
				s.alert(ctx, models.AlertMachineVanished, cp.Name+"/"+key,
					fmt.Sprintf("pool %s: machine %s (%s) of node %d is no longer listed by the provider", cp.Name, im.ProviderID, key, deref(im.NodeID)), now)
			}
		case models.MachineDeleting:
			id := im.ProviderID
			if m != nil {
				id = m.ID
			}
			if err := s.deleteMachine(ctx, prov, key, id, now); err != nil {
				return nil, err
			}
		}
	}
	var unknown []string
	for k := range byKey {
		if !live[k] {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	gone, err := s.store.DeletedMachineIDs(ctx, unknown)
	if err != nil {
		return nil, err
	}
	for _, key := range unknown {
		for _, m := range byKey[key] {
			if claimed[m.ID] {
				continue
			}
			nodeID, onNode := linked(m)
			switch {
			case onNode:
				if err := rc.adopt(ctx, m, gone[key], &nodeID); err != nil {
					return nil, err
				}
			case gone[key]:
				if err := rc.drop(ctx, m, ReasonLeftoverMachine, "its intent "+key+" was deleted"); err != nil {
					return nil, err
				}
			case cp.Config.AdoptUnknown:
				if err := rc.adopt(ctx, m, false, nil); err != nil {
					return nil, err
				}
				booting = append(booting, BootingMachine{Key: rc.lastKey, ID: m.ID, CreatedAt: now, Failed: m.State == kfleet.StateFailed})
			default:
				if err := rc.drop(ctx, m, ReasonUnknownMachine, "it carries the pool's tags but no intent of ours"); err != nil {
					return nil, err
				}
				s.alert(ctx, models.AlertOrphanDeleted, cp.Name+"/"+m.ID,
					fmt.Sprintf("pool %s: deleted machine %s (key %q): tagged for the pool but unknown", cp.Name, m.ID, key), now)
			}
		}
	}
	return booting, nil
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
		s.alert(ctx, models.AlertScaleFailed, cp.Name, fmt.Sprintf("pool %s: machine %s not created: %v", cp.Name, key, err), now)
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

// reconciler records what reconcile does to machines outside the intents.
type reconciler struct {
	s       *Scaler
	cp      models.ConfiguredPool
	prov    kfleet.Provider
	now     time.Time
	lastKey string
}

// drop deletes a machine that is none of ours to keep, with an event.
func (rc *reconciler) drop(ctx context.Context, m kfleet.Machine, r Reason, why string) error {
	if err := rc.prov.Delete(ctx, m.ID); err != nil {
		return fmt.Errorf("delete machine %s: %w", m.ID, err)
	}
	ev := models.ScalingEvent{Kind: string(ActionDeleteMachine), Reason: string(r), MachineKey: m.IdempotencyKey,
		Detail: fmt.Sprintf("deleted machine %s: %s", m.ID, why)}
	rc.s.cfg.Logger.Info("scaling", "pool", rc.cp.Name, "event", ev.Detail)
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
		return rc.drop(ctx, m, ReasonLeftoverMachine, "its adopted intent "+key+" was deleted")
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
		Detail: fmt.Sprintf("adopted machine %s (key %q) carrying the pool's tags", m.ID, m.IdempotencyKey)}
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
