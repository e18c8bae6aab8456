package models

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"
)

// AlertUnmanaged is raised while a GPU is used by processes of no task.
const AlertUnmanaged = "unmanaged-gpu-use"

// UnmanagedSpan is a time a GPU was used by processes of no task: from the first reading that
// showed their memory until the first that did not, in Unix seconds. An ongoing use has no
// span yet: its GPU's UnmanagedSince says when it began.
type UnmanagedSpan struct {
	ID    int64
	GPUID int64 `gorm:"column:gpu_id"`
	Start int64 `gorm:"column:start_s"`
	End   int64 `gorm:"column:end_s"`
}

func (UnmanagedSpan) TableName() string { return "unmanaged_spans" }

// unmanagedJoin is how close (seconds, about three sample intervals) a use must start to the
// end of the GPU's last span to extend it: a process missing from a reading or two leaves
// one span, not one per reading.
const unmanagedJoin = 30

// unmanagedUse is a GPU's use by processes of no task at one reading.
type unmanagedUse struct {
	ts  time.Time
	mib int64
	who string
}

// unmanagedByGPU returns, per GPU UUID, the unmanaged use at each reading of a batch, in time
// order.
func unmanagedByGPU(readings []Reading) map[string][]unmanagedUse {
	out := make(map[string][]unmanagedUse)
	for _, r := range readings {
		u := unmanagedUse{ts: UTC(r.TS)}
		var who []string
		for _, p := range r.Processes {
			if p.Unmanaged {
				u.mib += p.UsedMemoryMiB
				who = append(who, unmanagedWho(p))
			}
		}
		u.who = truncate(strings.Join(who, ", "), 500)
		out[r.UUID] = append(out[r.UUID], u)
	}
	for _, uses := range out {
		slices.SortStableFunc(uses, func(a, b unmanagedUse) int { return a.ts.Compare(b.ts) })
	}
	return out
}

// unmanagedWho says whose a process of no task is: its user, command, pid and memory; a
// reading of no process id (a Kubernetes pod read from the exporter) has none.
func unmanagedWho(p ProcessReading) string {
	if p.PID == 0 {
		return strings.TrimSpace(fmt.Sprintf("%s %s (%d MiB)", p.User, p.Command, p.UsedMemoryMiB))
	}
	return strings.TrimSpace(fmt.Sprintf("%s %s (pid %d, %d MiB)", p.User, p.Command, p.PID, p.UsedMemoryMiB))
}

// unmanagedWalk is what a batch's readings of a GPU change: its state after the last of
// them, and the spans of use that ended.
type unmanagedWalk struct {
	last   unmanagedUse
	since  *time.Time
	closed [][2]int64
}

// walkUnmanaged walks the readings of g newer than the last one walked, in time order. A use
// starts at the first reading with memory of processes of no task and ends at the first
// without. changed is false when the batch changes nothing stored.
func walkUnmanaged(g GPU, uses []unmanagedUse) (w unmanagedWalk, changed bool) {
	if g.UnmanagedReadAt != nil {
		uses = slices.DeleteFunc(slices.Clone(uses), func(u unmanagedUse) bool { return !u.ts.After(*g.UnmanagedReadAt) })
	}
	if len(uses) == 0 {
		return unmanagedWalk{}, false
	}
	w.since = g.UnmanagedSince
	for _, u := range uses {
		switch {
		case u.mib > 0 && w.since == nil:
			w.since = &u.ts
		case u.mib == 0 && w.since != nil:
			w.closed = append(w.closed, [2]int64{w.since.Unix(), u.ts.Unix()})
			w.since = nil
		}
	}
	w.last = uses[len(uses)-1]
	changed = len(w.closed) > 0 || (w.since == nil) != (g.UnmanagedSince == nil) ||
		w.last.mib != g.UnmanagedMiB || w.last.who != g.UnmanagedWho
	return w, changed
}

// unmanagedChange is a GPU whose use by processes of no task changes with a group's readings:
// what walkUnmanaged found, and when the batch arrived.
type unmanagedChange struct {
	gpu  *GPU
	walk unmanagedWalk
	now  time.Time
}

// unmanagedChanges returns, for the jobs of a group that were not refused, the GPUs whose
// unmanaged use changes with the group's readings (walked in time order; readings older than
// those walked before, resent from a spool, change nothing).
func unmanagedChanges(group []*sampleJob, done []sampleDone, byNode map[int64]map[string]*GPU) []unmanagedChange {
	uses := map[*GPU][]unmanagedUse{}
	nows := map[*GPU]time.Time{}
	var order []*GPU
	for i, j := range group {
		if done[i].err != nil {
			continue
		}
		for uuid, us := range unmanagedByGPU(j.samples) {
			g := byNode[j.nodeID][uuid]
			if g == nil {
				continue
			}
			if _, seen := uses[g]; !seen {
				order = append(order, g)
			}
			uses[g] = append(uses[g], us...)
			if j.now.After(nows[g]) {
				nows[g] = j.now
			}
		}
	}
	var out []unmanagedChange
	for _, g := range order {
		us := uses[g]
		slices.SortStableFunc(us, func(a, b unmanagedUse) int { return a.ts.Compare(b.ts) })
		if w, changed := walkUnmanaged(*g, us); changed {
			out = append(out, unmanagedChange{gpu: g, walk: w, now: nows[g]})
		}
	}
	return out
}

// saveUnmanaged stores the changed unmanaged use of GPUs in the transaction tx: the newest
// reading's, and the spans of use that ended. An alert opens when such use starts on a GPU
// and resolves when it ends.
func saveUnmanaged(tx *gorm.DB, changes []unmanagedChange) error {
	for _, c := range changes {
		g, w := c.gpu, c.walk
		for _, sp := range w.closed {
			if err := addUnmanagedSpan(tx, g.ID, sp); err != nil {
				return fmt.Errorf("models: unmanaged use of %s: %w", g.UUID, err)
			}
		}
		set := map[string]any{"unmanaged_mib": w.last.mib, "unmanaged_who": w.last.who, "unmanaged_since": w.since,
			"unmanaged_read_at": w.last.ts}
		if err := tx.Model(&GPU{}).Where("id = ?", g.ID).Updates(set).Error; err != nil {
			return fmt.Errorf("models: unmanaged use of %s: %w", g.UUID, err)
		}
		subject := "gpu " + g.UUID
		switch before, after := g.UnmanagedSince != nil, w.since != nil; {
		case after && !before:
			in := AlertInput{Kind: AlertUnmanaged, Subject: subject, NodeID: g.NodeID, Code: "unmanaged_gpu",
				Params: []string{strconv.Itoa(g.Index), g.UUID, w.last.who}}
			if _, _, err := raiseAlert(tx, in, c.now); err != nil {
				return err
			}
		case before && !after:
			if err := resolveAlert(tx, AlertUnmanaged, subject, c.now); err != nil {
				return err
			}
		}
	}
	return nil
}

// applyUnmanaged brings the GPUs of committed changes to what saveUnmanaged stored.
func applyUnmanaged(changes []unmanagedChange) {
	for _, c := range changes {
		g, w := c.gpu, c.walk
		read := w.last.ts
		g.UnmanagedMiB, g.UnmanagedWho, g.UnmanagedSince, g.UnmanagedReadAt = w.last.mib, w.last.who, w.since, &read
	}
}

// addUnmanagedSpan stores an ended use of a GPU, extending the GPU's last span when the use
// began at most unmanagedJoin seconds after it ended.
func addUnmanagedSpan(tx *gorm.DB, gpuID int64, sp [2]int64) error {
	var last UnmanagedSpan
	err := tx.Where("gpu_id = ?", gpuID).Order("end_s DESC").Take(&last).Error
	switch {
	case err == nil && sp[0] <= last.End+unmanagedJoin && sp[0] >= last.Start:
		return tx.Model(&UnmanagedSpan{}).Where("id = ?", last.ID).Update("end_s", max(last.End, sp[1])).Error
	case err != nil && !errors.Is(err, gorm.ErrRecordNotFound):
		return err
	}
	return tx.Create(&UnmanagedSpan{GPUID: gpuID, Start: sp[0], End: sp[1]}).Error
}

// UnmanagedSpans returns the GPUs' uses by processes of no task that overlap [from, to): the
// ended spans, and for a use going on, a span from its start with End 0 (until the node was
// last seen, for the caller to cut). By GPU, then start.
func (s *Store) UnmanagedSpans(ctx context.Context, from, to time.Time) ([]UnmanagedSpan, error) {
	db := s.db.WithContext(ctx)
	var out []UnmanagedSpan
	if err := db.Where("end_s > ? AND start_s < ?", from.Unix(), to.Unix()).Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: unmanaged spans: %w", err)
	}
	var open []GPU
	if err := db.Select("id, unmanaged_since").Where("unmanaged_since IS NOT NULL AND unmanaged_since < ?", UTC(to)).Find(&open).Error; err != nil {
		return nil, fmt.Errorf("models: unmanaged spans: %w", err)
	}
	for _, g := range open {
		out = append(out, UnmanagedSpan{GPUID: g.ID, Start: g.UnmanagedSince.Unix()})
	}
	slices.SortFunc(out, func(a, b UnmanagedSpan) int {
		return cmp.Or(cmp.Compare(a.GPUID, b.GPUID), cmp.Compare(a.Start, b.Start))
	})
	return out, nil
}
