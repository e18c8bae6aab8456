package pools

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/labstack/echo/v4"

	"kashi/models"
	"kashi/phrase"
	"kashi/views"
	poolsview "kashi/views/pools"
)

// postForm is an echo context of a POST of the form values.
func postForm(values url.Values) echo.Context {
	req := httptest.NewRequest(http.MethodPost, "/pools/a100", strings.NewReader(values.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return echo.New().NewContext(req, httptest.NewRecorder())
}

// fullConfig sets every setting, with durations that are not whole minutes.
var fullConfig = models.PoolConfig{Provider: "sim", Spec: "A100-80G", GPUsPerNode: 8, Flavor: "gpu.a100.8x",
	Image: "kashi-agent", Enabled: true, MinNodes: 1, MaxNodes: 6, Step: 2, ReservedMin: 1, AnySpec: true,
	BootTimeoutS: 900, ScaleUpDelayS: 90, MemoryHighPct: 85.5, MemoryHighWindowS: 301, MemoryLowPct: 20,
	MemoryLowWindowS: 600, UnneededS: 100, CooldownUpS: 600, CooldownDownS: 1200, MaxInFlight: 3, DrainBufferS: 1800,
	AdoptUnknown: true}

func TestPoolFormRoundTrip(t *testing.T) {
	values := url.Values{}
	for k, v := range poolValues(fullConfig) {
		values.Set(k, v)
	}
	form, got := (&Handler{}).poolFromForm(postForm(values))
	if len(form.Errors) != 0 {
		t.Fatalf("poolFromForm errors = %v", form.Errors)
	}
	if diff := cmp.Diff(fullConfig, got); diff != "" {
		t.Errorf("render then parse (-want +got):\n%s", diff)
	}
}

// TestPoolFormMinutes: durations are shown and entered in minutes, stored in seconds.
func TestPoolFormMinutes(t *testing.T) {
	v := poolValues(fullConfig)
	shown := map[string]string{"boot_timeout_s": v["boot_timeout_s"], "scale_up_delay_s": v["scale_up_delay_s"],
		"unneeded_s": v["unneeded_s"], "memory_high_window_s": v["memory_high_window_s"], "memory_high_pct": v["memory_high_pct"]}
	want := map[string]string{"boot_timeout_s": "15", "scale_up_delay_s": "1.5", "unneeded_s": "1.6667",
		"memory_high_window_s": "5.0167", "memory_high_pct": "85.5"}
	if diff := cmp.Diff(want, shown); diff != "" {
		t.Errorf("poolValues (-want +got):\n%s", diff)
	}
	_, cfg := (&Handler{}).poolFromForm(postForm(url.Values{"scale_up_delay_s": {"2.5"}, "unneeded_s": {" 10 "},
		"drain_buffer_s": {""}}))
	if cfg.ScaleUpDelayS != 150 || cfg.UnneededS != 600 || cfg.DrainBufferS != 0 {
		t.Errorf("2.5, 10 and empty minutes = %d s, %d s, %d s; want 150, 600, 0", cfg.ScaleUpDelayS, cfg.UnneededS, cfg.DrainBufferS)
	}
}

// TestPoolFormHours: a duration in hours converts both ways.
func TestPoolFormHours(t *testing.T) {
	f := models.PoolField{Name: "keep_s", Kind: models.PoolDuration, Unit: time.Hour, Max: 86400}
	if got := formatSetting(f, 5400); got != "1.5" {
		t.Errorf("formatSetting(5400 s) = %q, want 1.5 hours", got)
	}
	if got, code := parseSetting(f, "1.5"); got != 5400.0 || code != "" {
		t.Errorf("parseSetting(1.5 h) = %v, %q; want 5400 s", got, code)
	}
	if got := poolFieldView(f); got.Unit != poolsview.UnitHours || got.Max != "24" {
		t.Errorf("poolFieldView = %+v, want unit h and max 24", got)
	}
}

func TestPoolFormErrors(t *testing.T) {
	form, _ := (&Handler{}).poolFromForm(postForm(url.Values{"gpus_per_node": {"eight"}, "memory_high_pct": {"NaN"},
		"unneeded_s": {"-5"}, "cooldown_up_s": {"43201"}, "max_nodes": {"10001"}, "step": {"1.5"}, "boot_timeout_s": {"43200"}}))
	want := map[string]views.FormError{
		"gpus_per_node":   {Code: views.FormErrInt},
		"step":            {Code: views.FormErrInt},
		"memory_high_pct": {Code: views.FormErrNumber},
		"unneeded_s":      {Code: poolsview.FormErrRange},
		"cooldown_up_s":   {Code: poolsview.FormErrRange},
		"max_nodes":       {Code: poolsview.FormErrRange},
	}
	if diff := cmp.Diff(want, form.Errors); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	if form.Values["unneeded_s"] != "-5" || form.Values["gpus_per_node"] != "eight" {
		t.Errorf("values = %v, want them as typed", form.Values)
	}
}

// TestPoolFieldTexts: every setting and group has a label and help in both languages, and
// the help takes the default exactly when the setting has one.
func TestPoolFieldTexts(t *testing.T) {
	for _, l := range []phrase.Locale{{Lang: phrase.LangEN}, {Lang: phrase.LangZH}} {
		for _, g := range poolFormGroups {
			if l.T(g.TitleKey) == g.TitleKey {
				t.Errorf("%s: no text for %q", l.Lang, g.TitleKey)
			}
			for _, f := range g.Fields {
				for _, key := range []string{f.LabelKey, f.HelpKey} {
					if l.T(key) == key {
						t.Errorf("%s: no text for %q", l.Lang, key)
					}
				}
				help := l.T(f.HelpKey)
				if f.Default != "" {
					help = l.T(f.HelpKey, f.Default)
				}
				if strings.Contains(help, "%!") || strings.Contains(help, "%s") {
					t.Errorf("%s: help of %s with default %q = %q", l.Lang, f.Name, f.Default, help)
				}
			}
		}
	}
}

// TestConfigChanges: the history compares settings, not JSON: a setting an old version
// lacks reads as zero, and durations show in minutes.
func TestConfigChanges(t *testing.T) {
	old := `{"provider":"sim","spec":"A100-80G","gpus_per_node":8,"max_nodes":6,"unneeded_s":600}`
	after := `{"provider":"sim","spec":"A100-80G","gpus_per_node":8,"max_nodes":8,"unneeded_s":900,"drain_buffer_s":0,"adopt_unknown":true}`
	var got []string
	for _, ch := range configChanges(old, after) {
		got = append(got, ch.Field.Name+" "+ch.Before+"→"+ch.After+" "+ch.Field.Unit)
	}
	want := []string{"max_nodes 6→8 ", "adopt_unknown →on ", "unneeded_s 10→15 min"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("configChanges (-want +got):\n%s", diff)
	}
}
