package pools

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/billing"
	"kashi/handlers"
	"kashi/models"
	"kashi/phrase"
	"kashi/views"
	poolsview "kashi/views/pools"
)

// poolFormGroups are the configuration form's inputs in groups, in the order of the pool
// settings table.
var poolFormGroups = func() []poolsview.PoolFieldGroup {
	var out []poolsview.PoolFieldGroup
	group := ""
	for _, f := range models.PoolFields {
		if len(out) == 0 || f.Group != group {
			group = f.Group
			out = append(out, poolsview.PoolFieldGroup{TitleKey: phrase.PoolFieldKeyPrefix + "group." + group})
		}
		out[len(out)-1].Fields = append(out[len(out)-1].Fields, poolFieldView(f))
	}
	return out
}()

// poolFieldView maps a row of the settings table to its input, with the catalog keys of its
// label and help (phrase.PoolFieldKeyPrefix).
func poolFieldView(f models.PoolField) poolsview.PoolField {
	v := poolsview.PoolField{Name: f.Name, LabelKey: phrase.PoolFieldKeyPrefix + f.Name,
		HelpKey: phrase.PoolFieldKeyPrefix + f.Name + ".help",
		Min:     formatSetting(f, f.Min), Max: formatSetting(f, f.Max), Backend: f.Backend}
	if f.Default != 0 {
		v.Default = formatSetting(f, f.Default)
	}
	v.Optional = f.Optional()
	switch f.Kind {
	case models.PoolText:
		v.Kind = poolsview.PoolInputText
	case models.PoolChoice:
		v.Kind, v.Choices = poolsview.PoolInputChoice, f.Choices
	case models.PoolSwitch:
		v.Kind = poolsview.PoolInputCheck
	case models.PoolCount:
		v.Kind = poolsview.PoolInputCount
	case models.PoolPercent:
		v.Kind, v.Unit = poolsview.PoolInputNumber, poolsview.UnitPercent
	case models.PoolDuration:
		v.Kind, v.Unit = poolsview.PoolInputNumber, poolsview.UnitMinutes
		if f.Unit == time.Hour {
			v.Unit = poolsview.UnitHours
		}
	case models.PoolMoney:
		v.Kind, v.Unit = poolsview.PoolInputNumber, poolsview.UnitYuanHour
	}
	return v
}

// formatSetting writes a number of the setting, in stored units, as the form shows it: a
// duration in its unit, to four decimals (whole seconds survive the round trip).
func formatSetting(f models.PoolField, x float64) string {
	switch f.Kind {
	case models.PoolDuration:
		x = math.Round(x/f.Unit.Seconds()*1e4) / 1e4
	case models.PoolMoney:
		return billing.FormatFen(int64(x))
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// poolValues writes a configuration as the form's values (checkboxes "on" or "").
func poolValues(cfg models.PoolConfig) map[string]string {
	out := make(map[string]string, len(models.PoolFields))
	for _, f := range models.PoolFields {
		switch v := f.Value(cfg).(type) {
		case string:
			out[f.Name] = v
		case bool:
			if v {
				out[f.Name] = "on"
			}
		case float64:
			out[f.Name] = formatSetting(f, v)
		}
	}
	return out
}

// poolFromForm reads the configuration form: the values as typed, a problem per input that
// is not a number or is out of its range, and the configuration.
func (h *Handler) poolFromForm(c echo.Context) (poolsview.PoolForm, models.PoolConfig) {
	f := poolsview.PoolForm{Groups: poolFormGroups, Values: map[string]string{"note": c.FormValue("note")},
		Errors: map[string]views.FormError{}}
	var cfg models.PoolConfig
	for _, fd := range models.PoolFields {
		raw := strings.TrimSpace(c.FormValue(fd.Name))
		v, code := parseSetting(fd, raw)
		if fd.Kind == models.PoolSwitch && raw != "" {
			raw = "on"
		}
		f.Values[fd.Name] = raw
		if code != "" {
			f.Errors[fd.Name] = views.FormError{Code: code}
			continue
		}
		fd.SetValue(&cfg, v)
	}
	return f, cfg
}

// parseSetting reads a form input of the setting as the value it stores, or a views.FormErr*
// code. An empty number is 0, its default; of an optional setting, no value (nil).
func parseSetting(f models.PoolField, raw string) (any, string) {
	var x float64
	switch f.Kind {
	case models.PoolText:
		return raw, ""
	case models.PoolChoice:
		if raw != "" && !slices.Contains(f.Choices, raw) {
			return nil, poolsview.FormErrChoice
		}
		return raw, ""
	case models.PoolSwitch:
		return raw != "", ""
	case models.PoolMoney:
		if raw == "" {
			return 0.0, ""
		}
		fen, err := handlers.ParseYuan(f.Name, raw, false)
		if err != nil {
			return nil, poolsview.FormErrYuan
		}
		x = float64(fen)
	case models.PoolCount:
		if raw == "" && f.Optional() {
			return nil, "" // no value: its default
		}
		if raw == "" {
			return 0.0, ""
		}
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			return nil, views.FormErrInt
		}
		x = float64(n)
	default:
		if raw == "" {
			return 0.0, ""
		}
		var err error
		x, err = strconv.ParseFloat(raw, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, views.FormErrNumber
		}
		if f.Kind == models.PoolDuration {
			x = math.Round(x * f.Unit.Seconds())
		}
	}
	if !f.InRange(x) {
		return nil, poolsview.FormErrRange
	}
	return x, ""
}

// configChanges lists the settings whose values differ between two stored configurations;
// a setting a version predates reads as zero, as it did then.
func configChanges(before, after string) []poolsview.ConfigChange {
	var b, a models.PoolConfig
	json.Unmarshal([]byte(before), &b)
	json.Unmarshal([]byte(after), &a)
	return configDiff(b, a)
}

// configDiff lists the settings whose values differ between b and a.
func configDiff(b, a models.PoolConfig) []poolsview.ConfigChange {
	bv, av := poolValues(b), poolValues(a)
	var out []poolsview.ConfigChange
	for _, f := range models.PoolFields {
		if bv[f.Name] != av[f.Name] {
			out = append(out, poolsview.ConfigChange{Field: poolFieldView(f), Before: bv[f.Name], After: av[f.Name]})
		}
	}
	return out
}
