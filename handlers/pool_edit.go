package handlers

import (
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/models"
	"kashi/scaler"
	"kashi/views"
)

// PoolNew opens the configuration form of a new pool named by ?name=. GET /pools/new.
func (h *Pools) PoolNew(c echo.Context) error {
	name := strings.TrimSpace(c.QueryParam("name"))
	if name == "" {
		return c.Redirect(http.StatusSeeOther, "/pools")
	}
	return c.Redirect(http.StatusSeeOther, "/pools/"+url.PathEscape(name)+"/edit")
}

// PoolEdit shows a pool's configuration form and its version history, or an empty form for
// a pool not configured yet (admins only). GET /pools/:name/edit.
func (h *Pools) PoolEdit(c echo.Context) error {
	name, err := poolName(c)
	if err != nil {
		return err
	}
	l := Locale(c)
	d, err := h.poolEditData(c, name, nil)
	if err != nil {
		return err
	}
	q := c.QueryParams()
	switch {
	case q.Has("rolled"):
		from, _ := strconv.Atoi(q.Get("rolled"))
		d.Notice = views.PoolRolledBackNotice(l, from, d.Version)
	case q.Has("same"):
		d.Notice = views.PoolUnchangedNotice(l, d.Version)
	case q.Has("saved"):
		d.Notice = views.PoolSavedNotice(l, d.Version)
	}
	return Render(c, http.StatusOK, views.PoolEdit(l, d))
}

// PoolSave stores the form as the pool's new configuration version and wakes the scaling
// loop. A bad field brings the form back (422) with the message beside the field.
// POST /pools/:name.
func (h *Pools) PoolSave(c echo.Context) error {
	name, err := poolName(c)
	if err != nil {
		return err
	}
	form, cfg := h.poolFromForm(c)
	if len(form.Errors) == 0 {
		saved, changed, err := h.savePool(c, name, cfg, c.FormValue("note"))
		if err == nil {
			next := "saved"
			if !changed {
				next = "same"
			}
			return c.Redirect(http.StatusSeeOther, "/pools/"+url.PathEscape(name)+"/edit?"+next+"="+strconv.Itoa(saved.Version))
		}
		var fe *models.FieldError
		if !errors.As(err, &fe) {
			return err
		}
		form.Errors[fe.Field] = views.FormError{Code: views.FormErrStore, Text: fe.Msg}
	}
	d, err := h.poolEditData(c, name, &form)
	if err != nil {
		return err
	}
	if e, ok := form.Errors["name"]; ok {
		d.Error = e.Text
	}
	return Render(c, http.StatusUnprocessableEntity, views.PoolEdit(Locale(c), d))
}

// PoolRollback makes an earlier version the pool's configuration again, as a new version,
// and wakes the scaling loop. POST /pools/:name/rollback/:version.
func (h *Pools) PoolRollback(c echo.Context) error {
	name, err := poolName(c)
	if err != nil {
		return err
	}
	version, err := strconv.Atoi(c.Param("version"))
	if err != nil || version <= 0 {
		return badRequest("version", "version must be a positive integer")
	}
	ctx := c.Request().Context()
	before, _, err := h.configuredPool(ctx, name)
	if err != nil {
		return err
	}
	saved, err := h.store.RollBackPoolConfig(ctx, name, version, Who(c).User.Name, h.now())
	var fe *models.FieldError
	switch {
	case errors.As(err, &fe):
		d, derr := h.poolEditData(c, name, nil)
		if derr != nil {
			return derr
		}
		d.Error = fe.Error()
		return Render(c, http.StatusUnprocessableEntity, views.PoolEdit(Locale(c), d))
	case err != nil:
		return storeError(err)
	}
	if saved.Version == before.Version {
		// That version's configuration is the current one: nothing changed.
		return c.Redirect(http.StatusSeeOther, "/pools/"+url.PathEscape(name)+"/edit?same="+strconv.Itoa(saved.Version))
	}
	if err := h.store.Audit(ctx, h.now(), Who(c).User.Name, auditPoolConfig, nil, "pool "+name, before.Config, saved.Config); err != nil {
		return err
	}
	h.wakeScaler()
	return c.Redirect(http.StatusSeeOther, "/pools/"+url.PathEscape(name)+"/edit?rolled="+strconv.Itoa(version))
}

// poolEditData builds the configuration page: the form (the current configuration, or form
// when a submit was refused) and the version history.
func (h *Pools) poolEditData(c echo.Context, name string, form *views.PoolForm) (views.PoolEditData, error) {
	ctx := c.Request().Context()
	cur, ok, err := h.configuredPool(ctx, name)
	if err != nil {
		return views.PoolEditData{}, err
	}
	d := views.PoolEditData{Name: name, New: !ok, Version: cur.Version}
	if form != nil {
		d.Form = *form
	} else {
		cfg := cur.Config
		if !ok {
			cfg = models.PoolConfig{Provider: "sim", GPUsPerNode: 8, MaxNodes: 4}
		}
		d.Form = views.PoolForm{Values: poolValues(cfg), Errors: map[string]views.FormError{}}
	}
	d.Form.Defaults = poolDefaults(Locale(c))
	versions, err := h.store.PoolConfigVersions(ctx, name)
	if err != nil {
		return d, err
	}
	for _, v := range versions {
		vv := views.PoolVersionView{Version: v.Version, At: v.At.In(h.loc()), By: v.By, Note: v.Note,
			Created: v.Before == "null" || v.Before == "", Current: v.Version == cur.Version}
		if !vv.Created {
			vv.Changes = configChanges(v.Before, v.After)
		}
		d.Versions = append(d.Versions, vv)
	}
	return d, nil
}

// poolFieldOrder lists the configuration's fields (JSON names) in form order.
var poolFieldOrder = []string{"provider", "spec", "gpus_per_node", "flavor", "image", "enabled", "min_nodes", "max_nodes",
	"step", "reserved_min", "max_in_flight", "any_spec", "adopt_unknown", "scale_up_delay_s", "memory_high_pct",
	"memory_high_window_s", "cooldown_up_s", "boot_timeout_s", "memory_low_pct", "memory_low_window_s", "unneeded_s",
	"cooldown_down_s", "drain_buffer_s"}

// poolValues writes a configuration as the form's values (checkboxes "on" or "").
func poolValues(cfg models.PoolConfig) map[string]string {
	b, _ := json.Marshal(cfg)
	var m map[string]any
	json.Unmarshal(b, &m)
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = formValue(v)
	}
	return out
}

// formValue writes a JSON value as a form input holds it.
func formValue(v any) string {
	switch v := v.(type) {
	case bool:
		if v {
			return "on"
		}
		return ""
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case string:
		return v
	}
	return ""
}

// poolFromForm reads the configuration form: the values as typed, a problem per input that
// is not a number, and the configuration.
func (h *Pools) poolFromForm(c echo.Context) (views.PoolForm, models.PoolConfig) {
	f := views.PoolForm{Values: map[string]string{"note": c.FormValue("note")}, Errors: map[string]views.FormError{}}
	for _, k := range poolFieldOrder {
		f.Values[k] = strings.TrimSpace(c.FormValue(k))
	}
	for _, k := range []string{"enabled", "any_spec", "adopt_unknown"} {
		if f.Values[k] != "" {
			f.Values[k] = "on"
		}
	}
	integer := func(k string) int64 {
		v := f.Values[k]
		if v == "" {
			return 0
		}
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			f.Errors[k] = views.FormError{Code: views.FormErrInt}
		}
		return n
	}
	number := func(k string) float64 {
		v := f.Values[k]
		if v == "" {
			return 0
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			f.Errors[k] = views.FormError{Code: views.FormErrNumber}
		}
		return x
	}
	cfg := models.PoolConfig{Provider: f.Values["provider"], Spec: f.Values["spec"], GPUsPerNode: int(integer("gpus_per_node")),
		Flavor: f.Values["flavor"], Image: f.Values["image"], Enabled: f.Values["enabled"] == "on",
		MinNodes: int(integer("min_nodes")), MaxNodes: int(integer("max_nodes")), Step: int(integer("step")),
		ReservedMin: int(integer("reserved_min")), MaxInFlight: int(integer("max_in_flight")),
		AnySpec: f.Values["any_spec"] == "on", AdoptUnknown: f.Values["adopt_unknown"] == "on",
		ScaleUpDelayS: integer("scale_up_delay_s"), MemoryHighPct: number("memory_high_pct"),
		MemoryHighWindowS: integer("memory_high_window_s"), CooldownUpS: integer("cooldown_up_s"),
		BootTimeoutS: integer("boot_timeout_s"), MemoryLowPct: number("memory_low_pct"),
		MemoryLowWindowS: integer("memory_low_window_s"), UnneededS: integer("unneeded_s"),
		CooldownDownS: integer("cooldown_down_s"), DrainBufferS: integer("drain_buffer_s")}
	return f, cfg
}

// poolDefaults says what each zero field of the form stands for (scaler.Policy).
func poolDefaults(l views.Locale) map[string]string {
	d := func(v time.Duration) string { return l.Duration(v) }
	return map[string]string{
		"boot_timeout_s":       d(scaler.DefaultBootTimeout),
		"scale_up_delay_s":     d(scaler.DefaultScaleUpDelay),
		"memory_high_pct":      strconv.Itoa(scaler.DefaultMemoryHighPct) + "%",
		"memory_high_window_s": d(scaler.DefaultMemoryHighWindow),
		"memory_low_pct":       strconv.Itoa(scaler.DefaultMemoryLowPct) + "%",
		"memory_low_window_s":  d(scaler.DefaultMemoryLowWindow),
		"unneeded_s":           d(scaler.DefaultUnneededTime),
		"cooldown_up_s":        d(scaler.DefaultScaleCooldown),
		"cooldown_down_s":      d(scaler.DefaultScaleCooldown),
		"drain_buffer_s":       d(scaler.DefaultDrainBuffer),
		"max_in_flight":        "max(step, " + strconv.Itoa(scaler.DefaultMaxInFlight) + ")",
	}
}

// configChanges lists the fields whose values differ between two stored configurations.
func configChanges(before, after string) []views.ConfigChange {
	var b, a map[string]any
	json.Unmarshal([]byte(before), &b)
	json.Unmarshal([]byte(after), &a)
	var out []views.ConfigChange
	for _, k := range poolFieldOrder {
		bv, av := showValue(b[k]), showValue(a[k])
		if bv != av {
			out = append(out, views.ConfigChange{Field: k, Before: bv, After: av})
		}
	}
	return out
}

// showValue writes a stored configuration value for the version history.
func showValue(v any) string {
	switch v := v.(type) {
	case bool:
		return strconv.FormatBool(v)
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case string:
		if v == "" {
			return `""`
		}
		return v
	case nil:
		return "—"
	}
	return ""
}
