package views

import (
	"time"
)

// PoolsData is the pools page: every configured pool with its size, the chart of its size
// against demand, its scaling events and why it did not act. Handlers fill it.
type PoolsData struct {
	Now time.Time
	// Range is the chart's span, one of ChartRanges; From is Now minus it.
	Range string
	From  time.Time
	Pools []PoolView
	// CanEdit is true for admins: edit links and the form to add a pool.
	CanEdit bool
}

// ChartRanges are the spans the pools page's chart offers, the values of PoolsData.Range.
var ChartRanges = []string{"1h", "6h", "24h", "7d"}

// Pool states, the values of PoolView.State.
const (
	PoolSteady    = "steady"
	PoolGrowing   = "growing"
	PoolShrinking = "shrinking"
	PoolDisabled  = "disabled"
	// PoolAtMax: at its maximum size while demand waits for machines it may not add.
	PoolAtMax = "at-max"
)

// PoolView is one pool on the pools page.
type PoolView struct {
	Name     string
	Spec     string
	Provider string
	Flavor   string
	// Region is where a cloud pool's machines are: "region / zone", or empty.
	Region      string
	GPUsPerNode int
	Enabled     bool
	// Size counts nodes and machines booting; Desired is where the last tick headed.
	Size, Desired int
	MinNodes      int
	MaxNodes      int
	Booting       int
	State         string // a Pool* state
	Version       int
	UpdatedAt     time.Time
	UpdatedBy     string
	// StatusAt is the time of the scaling loop's last tick on the pool; nil before the first.
	StatusAt *time.Time
	Nodes    []PoolNodeView
	Skips    []PoolSkipView
	// Events are the latest scaling events, newest first.
	Events []ScaleEventView
	// Samples are the size history in the chart's range, oldest first.
	Samples []PoolSample
}

// PoolNodeView is a node of a pool.
type PoolNodeView struct {
	Hostname string
	State    string // ready, draining, lost
}

// PoolSkipView is one reason the scaling loop did not act on the pool at its last tick.
type PoolSkipView struct {
	Reason string // a scaler.Reason code
	Detail string // the numbers, in the page's language
}

// ScaleEventView is one scaling event.
type ScaleEventView struct {
	At     time.Time
	Pool   string
	Kind   string // scale-up, drain, undrain, remove, delete-machine, adopt
	From   int
	To     int
	Reason string // a scaler.Reason code
	Detail string // the numbers, in the page's language
}

// PoolSample is the pool's size, desired size and admissible demand at a minute.
type PoolSample struct {
	At         time.Time
	Size       int
	Desired    int
	DemandGPUs int
}

// PoolEditData is the admins' page of one pool's configuration: the form, and the version
// history with a roll back button per version.
type PoolEditData struct {
	Name string
	// New is true for a pool that has no configuration yet.
	New bool
	// Version is the current version; 0 for a new pool.
	Version  int
	Form     PoolForm
	Versions []PoolVersionView
	// Notice confirms a save or a roll back; Error is a problem of the whole form.
	Notice string
	Error  string
}

// PoolForm is the configuration form's state: its inputs in groups, and each input's value
// and problem by its name (checkboxes hold "on" or "").
type PoolForm struct {
	Groups []PoolFieldGroup
	Values map[string]string
	Errors map[string]FormError
}

// PoolFieldGroup is a fieldset of the configuration form; TitleKey is the catalog key of
// its legend.
type PoolFieldGroup struct {
	TitleKey string
	Fields   []PoolField
}

// PoolFieldKeyPrefix begins the catalog keys of the pool settings' labels, help texts and
// groups: "poolfield.<name>", "poolfield.<name>.help", "poolfield.group.<group>". Handlers
// name them from the settings table, so no literal key in views spells them out.
const PoolFieldKeyPrefix = "poolfield."

// PoolField is one pool setting, an input of the configuration form. Handlers fill it from
// the pool settings table.
type PoolField struct {
	// Name is the input's name, the setting's JSON name.
	Name string
	// LabelKey and HelpKey are the catalog keys of its label and help text; the help text
	// takes the Default as its argument when there is one.
	LabelKey string
	HelpKey  string
	Kind     string // a PoolInput* kind
	Unit     string // a Unit* value, "" for none
	// Min and Max are its range in Unit (its length for text); Default is what 0 stands
	// for, in Unit, "" when 0 means 0.
	Min, Max string
	Default  string
}

// Kinds of configuration inputs, the values of PoolField.Kind.
const (
	PoolInputText  = "text"
	PoolInputCheck = "check"
	// PoolInputCount takes a whole number, PoolInputNumber decimals too.
	PoolInputCount  = "count"
	PoolInputNumber = "number"
)

// Units of pool settings, the values of PoolField.Unit.
const (
	UnitMinutes = "min"
	UnitHours   = "h"
	UnitPercent = "%"
)

// FormErrRange: the number is outside its PoolField's Min to Max.
const FormErrRange = "range"

// PoolVersionView is one version of a pool's configuration.
type PoolVersionView struct {
	Version int
	At      time.Time
	By      string
	Note    string
	// Changes are the fields it changed; empty for the first version (Created).
	Changes []ConfigChange
	Created bool
	Current bool
}

// ConfigChange is one setting a version changed, with its values as the form holds them.
type ConfigChange struct {
	Field         PoolField
	Before, After string
}
