package models

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// AlertUnmanaged is raised while a GPU is used by processes of no task.
const AlertUnmanaged = "unmanaged-gpu-use"

// unmanagedUse is a GPU's use by processes of no task at one reading.
type unmanagedUse struct {
	ts  time.Time
	mib int64
	who string
}

// latestUnmanaged returns, per GPU UUID, the unmanaged use at its latest reading of a batch.
func latestUnmanaged(readings []Reading) map[string]unmanagedUse {
	out := make(map[string]unmanagedUse)
	for _, r := range readings {
		if prev, ok := out[r.UUID]; ok && !r.TS.After(prev.ts) {
			continue
		}
		u := unmanagedUse{ts: UTC(r.TS)}
		var who []string
		for _, p := range r.Processes {
			if p.Unmanaged {
				u.mib += p.UsedMemoryMiB
				who = append(who, strings.TrimSpace(fmt.Sprintf("%s %s (pid %d, %d MiB)", p.User, p.Command, p.PID, p.UsedMemoryMiB)))
			}
		}
		u.who = truncate(strings.Join(who, ", "), 500)
		out[r.UUID] = u
	}
	return out
}

// RecordUnmanaged stores, for each GPU of a node's batch, the use by processes of no task at
// its latest reading (older readings, resent from a spool, change nothing). An alert opens
// when such use starts on a GPU and resolves when it ends.
func (s *Store) RecordUnmanaged(ctx context.Context, nodeID int64, readings []Reading, now time.Time) error {
	db := s.db.WithContext(ctx)
	for uuid, u := range latestUnmanaged(readings) {
		var g GPU
		err := db.Where("node_id = ? AND uuid = ?", nodeID, uuid).Take(&g).Error
		if err != nil || (g.SampledAt != nil && u.ts.Before(*g.SampledAt)) {
			continue // an unknown GPU was refused by the ingest; an old reading is history
		}
		set := map[string]any{"unmanaged_mib": u.mib, "unmanaged_who": u.who}
		switch {
		case u.mib == 0:
			set["unmanaged_since"] = nil
		case g.UnmanagedSince == nil:
			set["unmanaged_since"] = u.ts
		}
		if err := db.Model(&GPU{}).Where("id = ?", g.ID).Updates(set).Error; err != nil {
			return fmt.Errorf("models: unmanaged use of %s: %w", uuid, err)
		}
		subject := "gpu " + uuid
		switch {
		case u.mib > 0 && g.UnmanagedSince == nil:
			in := AlertInput{Kind: AlertUnmanaged, Subject: subject, NodeID: nodeID, Code: "unmanaged_gpu",
				Params: []string{strconv.Itoa(g.Index), uuid, u.who}}
			if _, _, err := s.RaiseAlert(ctx, in, now); err != nil {
				return err
			}
		case u.mib == 0 && g.UnmanagedSince != nil:
			if err := s.ResolveAlert(ctx, AlertUnmanaged, subject, now); err != nil {
				return err
			}
		}
	}
	return nil
}
