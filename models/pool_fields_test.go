package models_test

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"kashi/models"
)

// TestPoolFieldsCoverConfig: every PoolConfig field has exactly one row, named by its JSON
// name and of a kind that fits its Go type, so a new field without a row fails here.
func TestPoolFieldsCoverConfig(t *testing.T) {
	kinds := map[reflect.Kind][]models.PoolFieldKind{
		reflect.String:  {models.PoolText, models.PoolChoice},
		reflect.Bool:    {models.PoolSwitch},
		reflect.Int:     {models.PoolCount},
		reflect.Int64:   {models.PoolDuration, models.PoolMoney},
		reflect.Float64: {models.PoolPercent},
	}
	rows := map[string]models.PoolField{}
	for _, f := range models.PoolFields {
		if _, dup := rows[f.Name]; dup {
			t.Errorf("PoolFields has two rows %q", f.Name)
		}
		rows[f.Name] = f
	}
	typ := reflect.TypeFor[models.PoolConfig]()
	var names []string
	for i := range typ.NumField() {
		sf := typ.Field(i)
		name := strings.Split(sf.Tag.Get("json"), ",")[0]
		names = append(names, name)
		f, ok := rows[name]
		if !ok {
			t.Errorf("PoolConfig.%s (%q) has no row in PoolFields", sf.Name, name)
			continue
		}
		kind := sf.Type.Kind()
		if kind == reflect.Pointer { // an optional setting
			kind = sf.Type.Elem().Kind()
		}
		if !slices.Contains(kinds[kind], f.Kind) {
			t.Errorf("row %q is of kind %d, PoolConfig.%s is a %s", name, f.Kind, sf.Name, sf.Type)
		}
	}
	if len(rows) != len(names) {
		t.Errorf("PoolFields has %d rows for %d PoolConfig fields %v", len(rows), len(names), names)
	}
}

// TestPoolFieldsAreSound: ranges hold their defaults, durations have a unit, choices have
// choices, and each group's rows are together, as the form shows them.
func TestPoolFieldsAreSound(t *testing.T) {
	seen := map[string]bool{}
	prev := ""
	for _, f := range models.PoolFields {
		if f.Min > f.Max || f.Default != 0 && !f.InRange(f.Default) {
			t.Errorf("row %q: range %g to %g, default %g", f.Name, f.Min, f.Max, f.Default)
		}
		if (f.Kind == models.PoolDuration) != (f.Unit == time.Minute || f.Unit == time.Hour) {
			t.Errorf("row %q: kind %d with unit %v; durations, and only they, are in minutes or hours", f.Name, f.Kind, f.Unit)
		}
		if f.Group != prev && seen[f.Group] {
			t.Errorf("row %q: group %q is split", f.Name, f.Group)
		}
		if (f.Kind == models.PoolChoice) != (len(f.Choices) > 1) {
			t.Errorf("row %q: kind %d with choices %v; choices, and only they, have two or more", f.Name, f.Kind, f.Choices)
		}
		seen[f.Group], prev = true, f.Group
	}
}

// TestPoolFieldValue: Value and SetValue reach the field of the row's name.
func TestPoolFieldValue(t *testing.T) {
	var c models.PoolConfig
	for _, f := range models.PoolFields {
		switch f.Kind {
		case models.PoolText:
			f.SetValue(&c, "x-"+f.Name)
		case models.PoolChoice:
			f.SetValue(&c, f.Choices[len(f.Choices)-1])
		case models.PoolSwitch:
			f.SetValue(&c, true)
		default:
			f.SetValue(&c, 7.0)
		}
	}
	want := models.PoolConfig{Provider: "x-provider", Backend: models.BackendKubernetes, KubeNodeSelector: "x-kube_node_selector",
		Kubeconfig: "x-kubeconfig", KubePodRetentionS: 7, KubeScaling: models.KubeScalingProvider, Spec: "x-spec", GPUsPerNode: 7, Flavor: "x-flavor", Image: "x-image",
		Region: "x-region", Zone: "x-zone", VPC: "x-vpc", Subnet: "x-subnet", SecurityGroup: "x-security_group",
		DiskType: "x-disk_type", DiskGB: 7, HourlyPriceFen: 7, Enabled: true, MinNodes: 7, MaxNodes: 7, Step: 7, ReservedMin: 7, ShortLaneNodes: 7, AnySpec: true, BootTimeoutS: 7, ScaleUpDelayS: 7,
		MemoryHighPct: 7, MemoryHighWindowS: 7, MemoryLowPct: 7, MemoryLowWindowS: 7, UnneededS: 7, CooldownUpS: 7,
		CooldownDownS: 7, MaxInFlight: 7, DrainBufferS: 7, AtMaxAlertS: 7, BootFailureLimit: 7, BootBackoffMaxS: 7, AdoptUnknown: true, ReclaimOff: true, ReclaimIdleS: 7,
		ReclaimGraceS: 7, ReclaimKeepForS: 7, ReclaimKeepsPerDay: 7, ReclaimSetupGraceS: 7,
		RequireImage: true, ContainerMounts: "x-container_mounts", KubeDCGMURL: "x-kube_dcgm_url", UnusedBookingPct: new(7), NoQuota: models.NoQuotaLimit, NoQuotaMaxGPUs: 7,
		AccountsByName: true, AllowRoot: true, TaskMemoryPerGPUGiB: 7, TaskCPUsPerGPU: 7,
		IntraNodeLink: models.LinkPCIe, IntraNodeGBytesS: 7, InterNodeLink: models.LinkEthernet, InterNodePorts: 7, InterNodePortGbps: 7,
		LocalStorageMBps: 7, SharedStorageMBps: 7}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("SetValue on every row (-want +got):\n%s", diff)
	}
	for _, f := range models.PoolFields {
		got := f.Value(c)
		if f.Kind != models.PoolText && f.Kind != models.PoolChoice && f.Kind != models.PoolSwitch && got != 7.0 {
			t.Errorf("Value of %q = %#v, want 7.0", f.Name, got)
		}
	}
}

func TestPoolConfigWithDefaults(t *testing.T) {
	tests := map[string]struct {
		in, want models.PoolConfig
	}{
		"zero takes every default": {
			in: models.PoolConfig{MaxNodes: 4},
			want: models.PoolConfig{MaxNodes: 4, Step: 1, MaxInFlight: 4, ScaleUpDelayS: 120, MemoryHighPct: 80,
				MemoryHighWindowS: 300, CooldownUpS: 600, BootTimeoutS: 900, MemoryLowPct: 20, MemoryLowWindowS: 600,
				UnneededS: 600, CooldownDownS: 600, DrainBufferS: 1800, AtMaxAlertS: 1800, BootFailureLimit: 3, BootBackoffMaxS: 14400, ReclaimIdleS: 1800, ReclaimGraceS: 1800, ReclaimKeepForS: 7200,
				ReclaimKeepsPerDay: 2, ReclaimSetupGraceS: 900, KubePodRetentionS: 3600},
		},
		"set values stay; in flight follows a large step": {
			in: models.PoolConfig{Step: 6, ScaleUpDelayS: 30, MemoryHighPct: 90, UnneededS: -1},
			want: models.PoolConfig{Step: 6, MaxInFlight: 6, ScaleUpDelayS: 30, MemoryHighPct: 90, MemoryHighWindowS: 300,
				CooldownUpS: 600, BootTimeoutS: 900, MemoryLowPct: 20, MemoryLowWindowS: 600, UnneededS: 600,
				CooldownDownS: 600, DrainBufferS: 1800, AtMaxAlertS: 1800, BootFailureLimit: 3, BootBackoffMaxS: 14400, ReclaimIdleS: 1800, ReclaimGraceS: 1800, ReclaimKeepForS: 7200,
				ReclaimKeepsPerDay: 2, ReclaimSetupGraceS: 900, KubePodRetentionS: 3600},
		},
		"a set in-flight cap stays under the step": {
			in: models.PoolConfig{Step: 6, MaxInFlight: 2},
			want: models.PoolConfig{Step: 6, MaxInFlight: 2, ScaleUpDelayS: 120, MemoryHighPct: 80, MemoryHighWindowS: 300,
				CooldownUpS: 600, BootTimeoutS: 900, MemoryLowPct: 20, MemoryLowWindowS: 600, UnneededS: 600,
				CooldownDownS: 600, DrainBufferS: 1800, AtMaxAlertS: 1800, BootFailureLimit: 3, BootBackoffMaxS: 14400, ReclaimIdleS: 1800, ReclaimGraceS: 1800, ReclaimKeepForS: 7200,
				ReclaimKeepsPerDay: 2, ReclaimSetupGraceS: 900, KubePodRetentionS: 3600},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, tc.in.WithDefaults()); diff != "" {
				t.Errorf("WithDefaults() (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPoolConfigRanges: a number past either end of its row's range is refused with a
// FieldError naming the setting and its range.
func TestPoolConfigRanges(t *testing.T) {
	valid := models.PoolConfig{Provider: "sim", Spec: "A100-80G", GPUsPerNode: 8, MaxNodes: 10000}
	if err := valid.Validate(); err != nil {
		t.Fatalf("Validate(%+v) = %v", valid, err)
	}
	for _, f := range models.PoolFields {
		if f.Kind == models.PoolText || f.Kind == models.PoolSwitch || f.Kind == models.PoolChoice {
			continue
		}
		for _, x := range []float64{f.Min - 1, f.Max + 1} {
			c := valid
			f.SetValue(&c, x)
			var fe *models.FieldError
			if err := c.Validate(); !errors.As(err, &fe) || fe.Field != f.Name || !strings.Contains(fe.Msg, "must be") {
				t.Errorf("Validate with %s = %g: %v, want a FieldError on %s", f.Name, x, err, f.Name)
			}
		}
	}
	c := valid
	c.UnneededS = -5
	want := &models.FieldError{Field: "unneeded_s", Msg: "must be 0 (default) to 2592000 seconds, got -5"}
	if diff := cmp.Diff(want, c.Validate(), cmpopts.IgnoreFields(models.FieldError{}, "Format", "Args")); diff != "" {
		t.Errorf("Validate with unneeded_s -5 (-want +got):\n%s", diff)
	}
	// A choice is one of its row's, a limit of projects without a quota at least a card.
	for _, bad := range []struct {
		c     models.PoolConfig
		field string
	}{
		{models.PoolConfig{NoQuota: "sometimes"}, "no_quota"},
		{models.PoolConfig{NoQuota: models.NoQuotaLimit}, "no_quota_max_gpus"},
		{models.PoolConfig{NoQuota: models.NoQuotaLimit, NoQuotaMaxGPUs: 100001}, "no_quota_max_gpus"},
	} {
		c := valid
		c.NoQuota, c.NoQuotaMaxGPUs = bad.c.NoQuota, bad.c.NoQuotaMaxGPUs
		var fe *models.FieldError
		if err := c.Validate(); !errors.As(err, &fe) || fe.Field != bad.field {
			t.Errorf("Validate with no_quota %q, no_quota_max_gpus %d = %v, want a FieldError on %s", c.NoQuota, c.NoQuotaMaxGPUs, err, bad.field)
		}
	}
	for _, good := range []string{"", models.NoQuotaAllowed, models.NoQuotaRefused} {
		c := valid
		c.NoQuota = good
		if err := c.Validate(); err != nil {
			t.Errorf("Validate with no_quota %q = %v", good, err)
		}
	}
	c = valid
	c.Image = strings.Repeat("镜", 129)
	if err := c.Validate(); err == nil || !strings.HasPrefix(err.Error(), "image: must be at most 128 characters") {
		t.Errorf("Validate with a 129-character image = %v", err)
	}
}
