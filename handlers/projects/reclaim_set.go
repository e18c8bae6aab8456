package projects

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
	"kashi/models"
	"kashi/views"
	projectsview "kashi/views/projects"
)

// ReclaimSet replaces a project's idle-reclaim override (the project's leads and admins): any
// of idle_s, grace_s, keep_for_s, setup_grace_s (seconds, 0 for the pool's), keeps_per_day,
// and never (the project's tasks are never reclaimed).
// POST /api/v1/projects/:id/reclaim {"idle_s": 7200, "never": false}.
func (h *Handler) ReclaimSet(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	var o api.ReclaimOverride
	if err := handlers.DecodeJSON(c, 4<<10, &o); err != nil {
		return err
	}
	if err := h.setReclaim(c, id, models.ReclaimOverride(o)); err != nil {
		return err
	}
	return c.JSON(http.StatusOK, o)
}

// ReclaimFormSubmit is the projects page's reclaim form: durations in minutes, empty for
// the pool's. POST /projects/:id/reclaim.
func (h *Handler) ReclaimFormSubmit(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	f := views.ReclaimForm{Never: c.FormValue("never") != "", IdleMin: c.FormValue("idle_min"),
		GraceMin: c.FormValue("grace_min"), KeepForMin: c.FormValue("keep_for_min"),
		SetupGraceMin: c.FormValue("setup_grace_min"), KeepsPerDay: c.FormValue("keeps_per_day")}
	o, err := reclaimFromForm(f)
	if err == nil {
		if err = h.setReclaim(c, id, o); err == nil {
			return c.Redirect(http.StatusSeeOther, "/projects?reclaim="+strconv.FormatInt(id, 10))
		}
	}
	var he *echo.HTTPError
	if errors.As(err, &he) {
		return err
	}
	f.Error = handlers.Problem(handlers.Locale(c), err)
	d, derr := h.projectsData(c, views.RequestForm{})
	if derr != nil {
		return derr
	}
	for i := range d.Projects {
		if d.Projects[i].ID == id {
			d.Projects[i].Reclaim = &f
		}
	}
	return handlers.Render(c, http.StatusUnprocessableEntity, projectsview.Projects(handlers.Locale(c), d))
}

// setReclaim stores the override when the caller leads the project.
func (h *Handler) setReclaim(c echo.Context, id int64, o models.ReclaimOverride) error {
	if !handlers.Who(c).Leads(id) {
		if !handlers.Who(c).CanSee(id) {
			return handlers.StoreError(models.ErrNotFound)
		}
		return handlers.Forbidden("only the project's leads set its idle reclaim")
	}
	if err := h.store.SetReclaimOverride(c.Request().Context(), handlers.Who(c).User.Name, id, o, h.Now()); err != nil {
		return handlers.StoreError(err)
	}
	return nil
}

// reclaimFromForm reads the form: whole minutes and keeps, each empty or 0 for the pool's.
func reclaimFromForm(f views.ReclaimForm) (models.ReclaimOverride, error) {
	o := models.ReclaimOverride{Never: f.Never}
	for _, v := range []struct {
		field, text string
		to          *int64
		scale       int64
	}{{"idle_min", f.IdleMin, &o.IdleS, 60}, {"grace_min", f.GraceMin, &o.GraceS, 60},
		{"keep_for_min", f.KeepForMin, &o.KeepForS, 60}, {"setup_grace_min", f.SetupGraceMin, &o.SetupGraceS, 60}} {
		if strings.TrimSpace(v.text) == "" {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(v.text), 10, 32)
		if err != nil || n < 0 {
			return o, models.Invalid(v.field, "give whole minutes, or leave it empty for the pool's")
		}
		*v.to = n * v.scale
	}
	if t := strings.TrimSpace(f.KeepsPerDay); t != "" {
		n, err := strconv.Atoi(t)
		if err != nil || n < 0 {
			return o, models.Invalid("keeps_per_day", "give a whole number, or leave it empty for the pool's")
		}
		o.KeepsPerDay = n
	}
	return o, nil
}

// reclaimFormOf shows a stored override in the form: minutes, empty for the pool's.
func reclaimFormOf(o models.ReclaimOverride) *views.ReclaimForm {
	min := func(s int64) string {
		if s == 0 {
			return ""
		}
		return strconv.FormatInt(s/60, 10)
	}
	f := &views.ReclaimForm{Never: o.Never, IdleMin: min(o.IdleS), GraceMin: min(o.GraceS), KeepForMin: min(o.KeepForS),
		SetupGraceMin: min(o.SetupGraceS)}
	if o.KeepsPerDay > 0 {
		f.KeepsPerDay = strconv.Itoa(o.KeepsPerDay)
	}
	return f
}
