package board

import (
	"net/http"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/models"
)

// gpuJSON is one GPU in GET /api/v1/gpus.
type gpuJSON struct {
	UUID           string     `json:"uuid"`
	Node           string     `json:"node"`
	Index          int        `json:"index"`
	Pool           string     `json:"pool"`
	Spec           string     `json:"spec"`
	MemoryTotalMiB int64      `json:"memory_total_mib"`
	MemoryUsedMiB  int64      `json:"memory_used_mib"`
	UtilPct        int        `json:"util_pct"`
	State          string     `json:"state"`
	TaskID         *int64     `json:"task_id"`
	Project        *string    `json:"project"`
	IdleSince      *time.Time `json:"idle_since"`
	UpdatedAt      *time.Time `json:"updated_at"`
	// UnmanagedMiB is memory held by processes of no task, UnmanagedWho whose.
	UnmanagedMiB int64  `json:"unmanaged_mib,omitempty"`
	UnmanagedWho string `json:"unmanaged_who,omitempty"`
}

// GPUsList lists every GPU with its latest reading and holder, filtered like the board.
// GET /api/v1/gpus?pool=&spec=&project=.
func (h *Handler) GPUsList(c echo.Context) error {
	f := models.BoardFilter{Pool: c.QueryParam("pool"), Spec: c.QueryParam("spec"), Project: c.QueryParam("project")}
	rows, err := h.store.BoardGPUs(c.Request().Context(), f)
	if err != nil {
		return err
	}
	now, marks := h.Now(), h.marks()
	out := make([]gpuJSON, len(rows))
	for i, r := range rows {
		out[i] = gpuJSON{UUID: r.UUID, Node: r.Hostname, Index: r.Index, Pool: r.Pool, Spec: r.Spec,
			MemoryTotalMiB: r.MemoryTotalMiB, MemoryUsedMiB: r.MemoryUsedMiB, UtilPct: r.UtilPct,
			State: r.Status(now, marks).State, IdleSince: r.IdleSince, UpdatedAt: r.SampledAt,
			UnmanagedMiB: r.UnmanagedMiB, UnmanagedWho: r.UnmanagedWho}
		if r.TaskID != 0 {
			out[i].TaskID, out[i].Project = &r.TaskID, &r.Project
		}
	}
	return c.JSON(http.StatusOK, out)
}
