package models

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"
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

// unmanagedChange is a GPU whose use by processes of no task differs, at its newest reading,
// from what its row shows.
type unmanagedChange struct {
	gpu *GPU
	use unmanagedUse
	now time.Time // when the batch arrived
}

// unmanagedChanges returns, for the jobs of a group that were not refused, the GPUs whose
// unmanaged use at their newest reading changed. byNode holds the GPUs with their readings
// already advanced over the group, so a reading older than a GPU's newest (resent from a
// spool) changes nothing.
func unmanagedChanges(group []*sampleJob, done []sampleDone, byNode map[int64]map[string]*GPU) []unmanagedChange {
	newest := map[*GPU]unmanagedChange{}
	var order []*GPU
	for i, j := range group {
		if done[i].err != nil {
			continue
		}
		for uuid, u := range latestUnmanaged(j.samples) {
			g := byNode[j.nodeID][uuid]
			if g == nil || (g.SampledAt != nil && u.ts.Before(*g.SampledAt)) {
				continue
			}
			prev, seen := newest[g]
			if !seen {
				order = append(order, g)
			}
			if !seen || u.ts.After(prev.use.ts) {
				newest[g] = unmanagedChange{gpu: g, use: u, now: j.now}
			}
		}
	}
	var out []unmanagedChange
	for _, g := range order {
		if c := newest[g]; c.use.mib != g.UnmanagedMiB || c.use.who != g.UnmanagedWho {
			out = append(out, c)
		}
	}
	return out
}

// saveUnmanaged stores the changed unmanaged use of GPUs in the transaction tx. An alert
// opens when such use starts on a GPU and resolves when it ends.
func saveUnmanaged(tx *gorm.DB, changes []unmanagedChange) error {
	for _, c := range changes {
		g, u, now := c.gpu, c.use, c.now
		set := map[string]any{"unmanaged_mib": u.mib, "unmanaged_who": u.who}
		switch {
		case u.mib == 0:
			set["unmanaged_since"] = nil
		case g.UnmanagedSince == nil:
			set["unmanaged_since"] = u.ts
		}
		if err := tx.Model(&GPU{}).Where("id = ?", g.ID).Updates(set).Error; err != nil {
			return fmt.Errorf("models: unmanaged use of %s: %w", g.UUID, err)
		}
		subject := "gpu " + g.UUID
		switch {
		case u.mib > 0 && g.UnmanagedSince == nil:
			in := AlertInput{Kind: AlertUnmanaged, Subject: subject, NodeID: g.NodeID, Code: "unmanaged_gpu",
				Params: []string{strconv.Itoa(g.Index), g.UUID, u.who}}
			if _, _, err := raiseAlert(tx, in, now); err != nil {
				return err
			}
		case u.mib == 0 && g.UnmanagedSince != nil:
			if err := resolveAlert(tx, AlertUnmanaged, subject, now); err != nil {
				return err
			}
		}
	}
	return nil
}
