package models

import (
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// PoolFieldKind is how a pool setting is typed, stored and entered.
type PoolFieldKind int

// Kinds of pool settings.
const (
	// PoolText is a string. Min and Max bound its length; a Min of 1 makes it a required
	// name, a Min of 0 an optional value without quotes, braces, backslashes or control
	// characters (see fleet.CreateRequest.Validate).
	PoolText PoolFieldKind = iota
	// PoolSwitch is a bool, a checkbox.
	PoolSwitch
	// PoolCount is a whole number.
	PoolCount
	// PoolPercent is a percentage; decimals are allowed.
	PoolPercent
	// PoolDuration is whole seconds in storage and the API, entered and shown in Unit.
	PoolDuration
	// PoolMoney is whole fen in storage and the API, entered and shown in yuan.
	PoolMoney
	// PoolChoice is a string, one of Choices, picked from a list; the first choice is the
	// default, stored as "".
	PoolChoice
)

// PoolField is one pool setting: a row of PoolFields.
type PoolField struct {
	// Name is the setting's JSON name, in storage and the API, and its form input's name.
	Name string
	Kind PoolFieldKind
	// Group is the part of the form it belongs to: machines, size, up, down, reclaim,
	// containers, booking, quota or tasks.
	Group string
	// Unit is what a PoolDuration is entered and shown in: time.Minute or time.Hour.
	Unit time.Duration
	// Min and Max bound the stored value (seconds for a duration, the length for text).
	Min, Max float64
	// Default is what a zero (or negative) value stands for, in stored units; 0 when zero
	// means zero. Of an optional setting (Optional), what no value stands for.
	Default float64
	// Choices are the values of a PoolChoice, the default first.
	Choices []string
	// Backend is the backend the setting is for, BackendKubernetes for a Kubernetes pool's
	// own; "" for every pool's. A pool of another backend may not set it (checkBackend),
	// and its form hides it.
	Backend string
}

// Bounds of the pool settings.
const (
	maxPoolNodes     = 10000
	maxPoolStep      = 1000
	maxPolicySeconds = 30 * 24 * 3600 // 30 days
	maxHourlyFen     = 100_000_00     // ¥100,000 a machine-hour
	maxBootFailures  = 100
	maxNoQuotaGPUs   = 100_000
	// maxTaskMemoryPerGPUGiB and maxTaskCPUsPerGPU bound a task's host memory and CPUs per
	// GPU: 4 TiB and 1,024 CPUs, more than any machine has for one card.
	maxTaskMemoryPerGPUGiB = 4096
	maxTaskCPUsPerGPU      = 1024
)

// PoolFields is the one table of the pool settings, in form order: every PoolConfig field
// has a row. It drives validation, the defaults the scaling loop applies, the admin form and
// its version history.
var PoolFields = []PoolField{
	{Name: "provider", Kind: PoolText, Group: "machines", Min: 1, Max: 50},
	{Name: "spec", Kind: PoolText, Group: "machines", Min: 1, Max: 100},
	{Name: "backend", Kind: PoolChoice, Group: "machines", Choices: []string{BackendAgent, BackendKubernetes}},
	{Name: "kube_node_selector", Kind: PoolText, Group: "machines", Max: 1000, Backend: BackendKubernetes},
	{Name: "kubeconfig", Kind: PoolText, Group: "machines", Max: 1000, Backend: BackendKubernetes},
	kubernetes(minutes("kube_pod_retention_s", "machines", time.Hour)),
	{Name: "kube_dcgm_url", Kind: PoolText, Group: "machines", Max: 1000, Backend: BackendKubernetes},
	{Name: "kube_scaling", Kind: PoolChoice, Group: "machines", Choices: []string{KubeScalingCluster, KubeScalingProvider}, Backend: BackendKubernetes},
	{Name: "gpus_per_node", Kind: PoolCount, Group: "machines", Min: 1, Max: 64},
	{Name: "flavor", Kind: PoolText, Group: "machines", Max: 128},
	{Name: "image", Kind: PoolText, Group: "machines", Max: 128},
	{Name: "region", Kind: PoolText, Group: "machines", Max: 64},
	{Name: "zone", Kind: PoolText, Group: "machines", Max: 64},
	{Name: "vpc", Kind: PoolText, Group: "machines", Max: 64},
	{Name: "subnet", Kind: PoolText, Group: "machines", Max: 64},
	{Name: "security_group", Kind: PoolText, Group: "machines", Max: 64},
	{Name: "disk_type", Kind: PoolText, Group: "machines", Max: 16},
	{Name: "disk_gb", Kind: PoolCount, Group: "machines", Max: 32768},
	{Name: "hourly_price_fen", Kind: PoolMoney, Group: "machines", Max: maxHourlyFen},
	{Name: "enabled", Kind: PoolSwitch, Group: "size"},
	{Name: "min_nodes", Kind: PoolCount, Group: "size", Max: maxPoolNodes},
	{Name: "max_nodes", Kind: PoolCount, Group: "size", Max: maxPoolNodes},
	{Name: "step", Kind: PoolCount, Group: "size", Max: maxPoolStep, Default: 1},
	{Name: "reserved_min", Kind: PoolCount, Group: "size", Max: maxPoolNodes},
	{Name: "short_lane_nodes", Kind: PoolCount, Group: "size", Max: maxPoolNodes},
	// A zero max_in_flight means max(step, Default): see WithDefaults.
	{Name: "max_in_flight", Kind: PoolCount, Group: "size", Max: maxPoolStep, Default: 4},
	{Name: "any_spec", Kind: PoolSwitch, Group: "size"},
	{Name: "adopt_unknown", Kind: PoolSwitch, Group: "size"},
	minutes("scale_up_delay_s", "up", 2*time.Minute),
	{Name: "memory_high_pct", Kind: PoolPercent, Group: "up", Max: 100, Default: 80},
	minutes("memory_high_window_s", "up", 5*time.Minute),
	minutes("cooldown_up_s", "up", 10*time.Minute),
	minutes("boot_timeout_s", "up", 15*time.Minute),
	{Name: "boot_failure_limit", Kind: PoolCount, Group: "up", Max: maxBootFailures, Default: 3},
	hours("boot_backoff_max_s", "up", 4*time.Hour),
	minutes("at_max_alert_s", "up", 30*time.Minute),
	{Name: "memory_low_pct", Kind: PoolPercent, Group: "down", Max: 100, Default: 20},
	minutes("memory_low_window_s", "down", 10*time.Minute),
	minutes("unneeded_s", "down", 10*time.Minute),
	minutes("cooldown_down_s", "down", 10*time.Minute),
	minutes("drain_buffer_s", "down", 30*time.Minute),
	{Name: "reclaim_off", Kind: PoolSwitch, Group: "reclaim"},
	minutes("reclaim_idle_s", "reclaim", 30*time.Minute),
	minutes("reclaim_grace_s", "reclaim", 30*time.Minute),
	hours("reclaim_keep_for_s", "reclaim", 2*time.Hour),
	{Name: "reclaim_keeps_per_day", Kind: PoolCount, Group: "reclaim", Max: maxKeepsPerDay, Default: 2},
	minutes("reclaim_setup_grace_s", "reclaim", 15*time.Minute),
	{Name: "require_image", Kind: PoolSwitch, Group: "containers"},
	{Name: "container_mounts", Kind: PoolText, Group: "containers", Max: 1000},
	// Optional: no value (null) is DefaultUnusedBookingPct; 0 is free.
	{Name: "unused_booking_pct", Kind: PoolCount, Group: "booking", Max: 100, Default: DefaultUnusedBookingPct},
	{Name: "no_quota", Kind: PoolChoice, Group: "quota", Choices: []string{NoQuotaAllowed, NoQuotaRefused, NoQuotaLimit}},
	{Name: "no_quota_max_gpus", Kind: PoolCount, Group: "quota", Max: maxNoQuotaGPUs},
	{Name: "accounts_by_name", Kind: PoolSwitch, Group: "tasks"},
	{Name: "allow_root", Kind: PoolSwitch, Group: "tasks"},
	{Name: "task_memory_per_gpu_gib", Kind: PoolCount, Group: "tasks", Max: maxTaskMemoryPerGPUGiB},
	{Name: "task_cpus_per_gpu", Kind: PoolCount, Group: "tasks", Max: maxTaskCPUsPerGPU},
	{Name: "intra_node_link", Kind: PoolChoice, Group: "links", Choices: []string{LinkUnstated, LinkNVLink, LinkPCIe}},
	{Name: "intra_node_gbytes_s", Kind: PoolCount, Group: "links", Max: MaxIntraNodeGBytesS},
	{Name: "inter_node_link", Kind: PoolChoice, Group: "links", Choices: []string{LinkUnstated, LinkNone, LinkRoCE, LinkInfiniBand, LinkEthernet}},
	{Name: "inter_node_ports", Kind: PoolCount, Group: "links", Max: MaxInterNodePorts},
	{Name: "inter_node_port_gbps", Kind: PoolCount, Group: "links", Max: MaxInterNodePortGbps},
	{Name: "local_storage_mbps", Kind: PoolCount, Group: "links", Max: MaxStorageMBps},
	{Name: "shared_storage_mbps", Kind: PoolCount, Group: "links", Max: MaxStorageMBps},
}

// minutes is the row of a duration entered in minutes, 0 to 30 days, zero meaning def.
func minutes(name, group string, def time.Duration) PoolField {
	return PoolField{Name: name, Kind: PoolDuration, Group: group, Unit: time.Minute, Max: maxPolicySeconds,
		Default: def.Seconds()}
}

// kubernetes is row f of a Kubernetes pool's own setting.
func kubernetes(f PoolField) PoolField {
	f.Backend = BackendKubernetes
	return f
}

// hours is the row of a duration entered in hours, 0 to 30 days, zero meaning def.
func hours(name, group string, def time.Duration) PoolField {
	f := minutes(name, group, def)
	f.Unit = time.Hour
	return f
}

// poolFieldIndex maps each row's name to its PoolConfig field, by the field's JSON name.
var poolFieldIndex = func() map[string]int {
	t := reflect.TypeFor[PoolConfig]()
	byTag := make(map[string]int, t.NumField())
	for i := range t.NumField() {
		byTag[strings.Split(t.Field(i).Tag.Get("json"), ",")[0]] = i
	}
	out := make(map[string]int, len(PoolFields))
	for _, f := range PoolFields {
		i, ok := byTag[f.Name]
		if !ok {
			panic("models: pool setting " + f.Name + " is no PoolConfig field")
		}
		out[f.Name] = i
	}
	return out
}()

// Optional reports whether the setting may hold no value (a pointer, null in JSON), which
// its Default stands for, rather than a zero that does.
func (f PoolField) Optional() bool {
	return reflect.TypeFor[PoolConfig]().Field(poolFieldIndex[f.Name]).Type.Kind() == reflect.Pointer
}

// Value returns the setting in c as its JSON holds it: a string, a bool, or a float64 (a
// duration in seconds); nil for an optional setting without a value.
func (f PoolField) Value(c PoolConfig) any {
	v := reflect.ValueOf(c).Field(poolFieldIndex[f.Name])
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	switch {
	case v.CanInt():
		return float64(v.Int())
	case v.CanFloat():
		return v.Float()
	}
	return v.Interface()
}

// SetValue sets the setting in c to v, a value of the type Value returns; a count or a
// duration drops its fraction.
func (f PoolField) SetValue(c *PoolConfig, v any) {
	field := reflect.ValueOf(c).Elem().Field(poolFieldIndex[f.Name])
	if field.Kind() == reflect.Pointer {
		if v == nil {
			field.SetZero()
			return
		}
		field.Set(reflect.New(field.Type().Elem()))
		field = field.Elem()
	}
	switch {
	case field.CanInt():
		field.SetInt(int64(v.(float64)))
	case field.CanFloat():
		field.SetFloat(v.(float64))
	default:
		field.Set(reflect.ValueOf(v))
	}
}

// InRange reports whether the number x, in stored units, is within the setting's range.
func (f PoolField) InRange(x float64) bool { return x >= f.Min && x <= f.Max }

// freeTextRE is what an optional text setting may hold: no quotes, braces, backslashes or
// control characters.
var freeTextRE = regexp.MustCompile(`^[^"\\{}\x00-\x1f\x7f]*$`)

// check returns a *FieldError when the setting's value in c is out of its range.
func (f PoolField) check(c PoolConfig) error {
	switch v := f.Value(c).(type) {
	case string:
		if f.Kind == PoolChoice {
			if v != "" && !slices.Contains(f.Choices, v) {
				return fieldErr(f.Name, "must be one of %s, got %q", strings.Join(f.Choices, ", "), v)
			}
			return nil
		}
		if f.Min > 0 {
			if checkName(f.Name, v, int(f.Max)) != nil {
				return fieldErr(f.Name, "is required: 1 to %d bytes of UTF-8", int(f.Max))
			}
			return nil
		}
		if !freeTextRE.MatchString(v) || utf8.RuneCountInString(v) > int(f.Max) {
			return fieldErr(f.Name, "must be at most %d characters, without quotes, braces or backslashes", int(f.Max))
		}
	case float64:
		if !f.InRange(v) {
			low := formatNumber(f.Min)
			if f.Min == 0 && f.Default != 0 && !f.Optional() {
				low = "0 (default)"
			}
			unit := ""
			switch f.Kind {
			case PoolDuration:
				unit = " seconds"
			case PoolMoney:
				unit = " fen"
			}
			return fieldErr(f.Name, "must be %s to %s%s, got %s", low, formatNumber(f.Max), unit, formatNumber(v))
		}
	}
	return nil
}

// canonical returns c with every choice that names its default stored as "", so that a
// configuration saved with the default named equals one saved before the setting was.
func (c PoolConfig) canonical() PoolConfig {
	for _, f := range PoolFields {
		if f.Kind == PoolChoice && f.Value(c) == f.Choices[0] {
			f.SetValue(&c, "")
		}
	}
	return c
}

// poolDefault is a setting WithDefaults fills: its PoolConfig field index and default.
type poolDefault struct {
	field int
	def   float64
}

// poolDefaults are the rows WithDefaults fills, each setting with a default that is not
// optional, found once rather than at every call.
var poolDefaults = func() []poolDefault {
	var out []poolDefault
	for _, f := range PoolFields {
		if f.Default != 0 && !f.Optional() {
			out = append(out, poolDefault{poolFieldIndex[f.Name], f.Default})
		}
	}
	return out
}()

// WithDefaults returns c with every zero or negative setting that has a default set to
// it (an optional one without a value keeps none: its reader applies the default); a zero
// max_in_flight becomes max(step, its default).
func (c PoolConfig) WithDefaults() PoolConfig {
	out := c
	v := reflect.ValueOf(&out).Elem()
	for _, d := range poolDefaults {
		switch f := v.Field(d.field); {
		case f.CanInt() && f.Int() <= 0:
			f.SetInt(int64(d.def))
		case f.CanFloat() && f.Float() <= 0:
			f.SetFloat(d.def)
		}
	}
	if c.MaxInFlight <= 0 {
		out.MaxInFlight = max(out.Step, out.MaxInFlight)
	}
	return out
}

// formatNumber writes x without exponent or trailing zeros.
func formatNumber(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
