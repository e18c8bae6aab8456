package pools

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	"kashi/views"
	poolsview "kashi/views/pools"
)

// PoolNew opens the configuration form of a new pool named by ?name=. GET /pools/new.
func (h *Handler) PoolNew(c echo.Context) error {
	name := strings.TrimSpace(c.QueryParam("name"))
	if name == "" {
		return c.Redirect(http.StatusSeeOther, "/pools")
	}
	return c.Redirect(http.StatusSeeOther, "/pools/"+url.PathEscape(name)+"/edit")
}

// PoolEdit shows a pool's configuration form and its version history, or an empty form for
// a pool not configured yet (admins only). GET /pools/:name/edit.
func (h *Handler) PoolEdit(c echo.Context) error {
	name, err := poolName(c)
	if err != nil {
		return err
	}
	l := handlers.Locale(c)
	d, err := h.poolEditData(c, name, nil)
	if err != nil {
		return err
	}
	q := c.QueryParams()
	switch {
	case q.Has("rolled"):
		from, _ := strconv.Atoi(q.Get("rolled"))
		d.Notice = poolsview.PoolRolledBackNotice(l, from, d.Version)
	case q.Has("same"):
		d.Notice = poolsview.PoolUnchangedNotice(l, d.Version)
	case q.Has("saved"):
		d.Notice = poolsview.PoolSavedNotice(l, d.Version)
	}
	return handlers.Render(c, http.StatusOK, poolsview.PoolEdit(l, d))
}

// PoolSave stores the form as the pool's new configuration version and wakes the loops. A
// bad field brings the form back (422) with the message beside the field.
// POST /pools/:name.
func (h *Handler) PoolSave(c echo.Context) error {
	name, err := poolName(c)
	if err != nil {
		return err
	}
	form, cfg := h.poolFromForm(c)
	if _, bad := form.Errors["flavor"]; !bad {
		h.checkFlavor(c.Request().Context(), cfg, form.Errors)
	}
	l := handlers.Locale(c)
	// storeProblems puts what the store refuses beside each setting the form could read.
	storeProblems := func(err error) error {
		fes := models.AllFieldErrors(err)
		if fes == nil {
			return err
		}
		for _, fe := range fes {
			if _, ok := form.Errors[fe.Field]; !ok {
				form.Errors[fe.Field] = views.FormError{Code: views.FormErrStore, Text: l.Problem(fe.Format, fe.Args, fe.Msg)}
			}
		}
		return nil
	}
	if len(form.Errors) == 0 {
		saved, changed, err := h.savePool(c, name, cfg, c.FormValue("note"))
		if err == nil {
			next := "saved"
			if !changed {
				next = "same"
			}
			return c.Redirect(http.StatusSeeOther, "/pools/"+url.PathEscape(name)+"/edit?"+next+"="+strconv.Itoa(saved.Version))
		}
		if err := storeProblems(err); err != nil {
			return err
		}
	} else if err := storeProblems(cfg.Validate()); err != nil {
		// The settings it could read are checked too: every problem at once.
		return err
	}
	d, err := h.poolEditData(c, name, &form)
	if err != nil {
		return err
	}
	if e, ok := form.Errors["name"]; ok {
		d.Error = e.Text
	}
	return handlers.Render(c, http.StatusUnprocessableEntity, poolsview.PoolEdit(handlers.Locale(c), d))
}

// PoolRollback makes an earlier version the pool's configuration again, as a new version,
// and wakes the loops. POST /pools/:name/rollback/:version.
func (h *Handler) PoolRollback(c echo.Context) error {
	name, err := poolName(c)
	if err != nil {
		return err
	}
	version, err := strconv.Atoi(c.Param("version"))
	if err != nil || version <= 0 {
		return handlers.BadRequest("version", "version must be a positive integer")
	}
	ctx := c.Request().Context()
	before, _, err := h.configuredPool(ctx, name)
	if err != nil {
		return err
	}
	saved, err := h.store.RollBackPoolConfig(ctx, name, version, handlers.Who(c).User.Name, h.Now())
	var fe *models.FieldError
	switch {
	case errors.As(err, &fe):
		d, derr := h.poolEditData(c, name, nil)
		if derr != nil {
			return derr
		}
		d.Error = handlers.Invalid(handlers.Locale(c), fe)
		return handlers.Render(c, http.StatusUnprocessableEntity, poolsview.PoolEdit(handlers.Locale(c), d))
	case err != nil:
		return handlers.StoreError(err)
	}
	if saved.Version == before.Version {
		// That version's configuration is the current one: nothing changed.
		return c.Redirect(http.StatusSeeOther, "/pools/"+url.PathEscape(name)+"/edit?same="+strconv.Itoa(saved.Version))
	}
	if err := h.store.Audit(ctx, h.Now(), handlers.Who(c).User.Name, auditPoolConfig, nil, "pool "+name, before.Config, saved.Config); err != nil {
		return err
	}
	h.wakeLoops()
	return c.Redirect(http.StatusSeeOther, "/pools/"+url.PathEscape(name)+"/edit?rolled="+strconv.Itoa(version))
}

// poolEditData builds the configuration page: the form (the current configuration, or form
// when a submit was refused) and the version history.
func (h *Handler) poolEditData(c echo.Context, name string, form *poolsview.PoolForm) (poolsview.PoolEditData, error) {
	ctx := c.Request().Context()
	cur, ok, err := h.configuredPool(ctx, name)
	if err != nil {
		return poolsview.PoolEditData{}, err
	}
	d := poolsview.PoolEditData{Name: name, New: !ok, Version: cur.Version}
	if form != nil {
		d.Form = *form
	} else {
		cfg := cur.Config
		if !ok {
			cfg = models.PoolConfig{Provider: "sim", GPUsPerNode: 8, MaxNodes: 4}
		}
		d.Form = poolsview.PoolForm{Groups: poolFormGroups, Values: poolValues(cfg), Errors: map[string]views.FormError{}}
	}
	h.poolFlavors(ctx, &d.Form)
	versions, err := h.store.PoolConfigVersions(ctx, name)
	if err != nil {
		return d, err
	}
	measured := 0
	for _, v := range versions {
		vv := poolsview.PoolVersionView{Version: v.Version, At: v.At.In(h.Loc()), By: v.By, Note: v.Note,
			Created: v.Before == "null" || v.Before == "", Current: v.Version == cur.Version}
		if !vv.Created {
			vv.Changes = configChanges(v.Before, v.After)
			vv.Measured = measured < measuredVersions
			measured++
		}
		d.Versions = append(d.Versions, vv)
	}
	return d, nil
}
