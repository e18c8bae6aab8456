package notice

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"kashi/models"
)

// DefaultMemoryAlertPct is the GPU memory use, in percent, at which a task's card raises an
// alert (显存告警): the task is about to run out of memory.
const DefaultMemoryAlertPct = 95

// MemoryAlertStore is what CheckGPUMemory needs of models.Store.
type MemoryAlertStore interface {
	BoardGPUs(ctx context.Context, f models.BoardFilter) ([]models.BoardGPU, error)
	Alerts(ctx context.Context, f models.AlertFilter) ([]models.Alert, error)
	RaiseAlert(ctx context.Context, in models.AlertInput, now time.Time) (models.Alert, bool, error)
	ResolveAlert(ctx context.Context, kind, subject string, now time.Time) error
}

// CheckGPUMemory raises a gpu-memory alert for every card a task holds whose memory use is at
// or above pct percent, and resolves the alerts of cards that came back under it.
func CheckGPUMemory(ctx context.Context, store MemoryAlertStore, pct int, now time.Time) error {
	gpus, err := store.BoardGPUs(ctx, models.BoardFilter{})
	if err != nil {
		return err
	}
	high := make(map[string]bool)
	for _, g := range gpus {
		if g.TaskID == 0 || g.MemoryTotalMiB == 0 || g.MemoryUsedMiB*100 < int64(pct)*g.MemoryTotalMiB {
			continue
		}
		subject := fmt.Sprintf("task %d on %s GPU %d", g.TaskID, g.Hostname, g.Index)
		high[subject] = true
		in := models.AlertInput{Kind: models.AlertGPUMemory, Subject: subject, TaskID: g.TaskID, NodeID: g.NodeID,
			Pool: g.Pool, Severity: models.SeverityCritical, Code: "gpu_memory",
			Params: []string{strconv.FormatInt(g.TaskID, 10), g.Task, g.Project, g.Hostname, strconv.Itoa(g.Index),
				strconv.FormatInt(g.MemoryUsedMiB, 10), strconv.FormatInt(g.MemoryTotalMiB, 10),
				strconv.FormatInt(g.MemoryUsedMiB*100/g.MemoryTotalMiB, 10), strconv.Itoa(pct)}}
		if _, _, err := store.RaiseAlert(ctx, in, now); err != nil {
			return err
		}
	}
	open, err := store.Alerts(ctx, models.AlertFilter{OpenOnly: true})
	if err != nil {
		return err
	}
	for _, a := range open {
		if a.Kind == models.AlertGPUMemory && !high[a.Subject] {
			if err := store.ResolveAlert(ctx, a.Kind, a.Subject, now); err != nil {
				return err
			}
		}
	}
	return nil
}
