package pools

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
)

// auditPoolResume is the audit action of a pool resumed after machines failed to boot.
const auditPoolResume = "pool-resume"

// PoolResume lets a pool that stopped asking for machines after boot failures ask again
// (admins only), and wakes the scaling loop. POST /pools/:name/resume.
func (h *Handler) PoolResume(c echo.Context) error {
	name, err := poolName(c)
	if err != nil {
		return err
	}
	if err := h.resumePool(c, name); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/pools")
}

// PoolResumeAPI is PoolResume for the API: it answers with the pool as GET /api/v1/pools
// shows it. POST /api/v1/pools/:name/resume.
func (h *Handler) PoolResumeAPI(c echo.Context) error {
	name, err := poolName(c)
	if err != nil {
		return err
	}
	if err := h.resumePool(c, name); err != nil {
		return err
	}
	return h.poolAnswer(c, name)
}

// resumePool ends the pool's run of boot failures. A run that ended is audited and wakes
// the scaling loop; a pool without one is left as it is.
func (h *Handler) resumePool(c echo.Context, name string) error {
	ctx := c.Request().Context()
	before, err := h.store.ResumePool(ctx, name, h.Now())
	if err != nil {
		return handlers.StoreError(err)
	}
	if before.BootFailures == 0 && before.FailingSince == nil {
		return nil
	}
	err = h.store.Audit(ctx, h.Now(), handlers.Who(c).User.Name, auditPoolResume, nil, "pool "+name,
		map[string]any{"boot_failures": before.BootFailures, "failing_since": before.FailingSince},
		map[string]any{"boot_failures": 0, "failing_since": nil})
	if err != nil {
		return err
	}
	h.wakeLoops()
	return nil
}
