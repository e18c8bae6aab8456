package board

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
)

// GPUsList lists every GPU with its latest reading and holder, filtered like the board; a
// GPU's UUID only to admins. GET /api/v1/gpus?pool=&spec=&project=.
func (h *Handler) GPUsList(c echo.Context) error {
	f := models.BoardFilter{Pool: c.QueryParam("pool"), Spec: c.QueryParam("spec"), Project: c.QueryParam("project")}
	rows, err := h.store.BoardGPUs(c.Request().Context(), f)
	if err != nil {
		return err
	}
	now, marks, admin := h.Now(), h.marks(), handlers.Who(c).Admin()
	out := make([]api.GPU, len(rows))
	for i, r := range rows {
		out[i] = api.GPU{ID: r.ID, Node: r.Hostname, Index: r.Index, Pool: r.Pool, Spec: r.Spec,
			MemoryTotalMiB: r.MemoryTotalMiB, MemoryUsedMiB: r.MemoryUsedMiB, UtilPct: r.UtilPct,
			State: api.GPUState(r.Status(now, marks).State), IdleSince: r.IdleSince, UpdatedAt: r.SampledAt,
			UnmanagedMiB: r.UnmanagedMiB, UnmanagedWho: r.UnmanagedWho}
		if r.TaskID != 0 {
			out[i].TaskID, out[i].Project = &r.TaskID, &r.Project
		}
		if admin {
			out[i].UUID = r.UUID
		}
	}
	return c.JSON(http.StatusOK, out)
}
