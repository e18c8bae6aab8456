package pools

import (
	"time"

	"kashi/views"
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
	// CanReview is true for leads and admins: each pool's pilot review.
	CanReview bool
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
	// PoolFailing: machines failed to boot as many times in a row as its settings allow,
	// and it asks for none until an admin resumes it.
	PoolFailing = "failing"
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
	// HourlyPriceFen is the list price of one machine per hour, 0 when unknown, and
	// PriceSource where it came from: PriceFromProvider or PriceFromSettings.
	HourlyPriceFen int64
	PriceSource    string
	Nodes          []PoolNodeView
	Skips          []PoolSkipView
	// Events are the latest scaling events, newest first.
	Events []ScaleEventView
	// Samples are the size history in the chart's range, oldest first.
	Samples []PoolSample
	// Bookings are the reservations of the pool's spec overlapping the chart's range or the
	// coming days, by start: the chart draws the booked cards (in nodes) as a band.
	Bookings []PoolBooking
	// Boot is the pool's machines that failed to boot in a row; zero without failures.
	Boot PoolBootView
	// Attrs is what the pool states for work across cards and nodes and for storage.
	Attrs views.PoolAttrs
	// Cluster is a Kubernetes pool's cluster as this replica's controller sees it; nil for
	// an agent pool.
	Cluster *PoolClusterView
}

// PoolClusterView is a Kubernetes pool's cluster on its card, as the API's "cluster" says it
// (api.PoolCluster): whether this replica watches it, its apiserver reached at CheckedAt,
// the last error and when, the Lease held here, and while it is, the selected nodes by state
// and Kashi's pods there.
type PoolClusterView struct {
	Watched, Reached, LeaseHeld         bool
	CheckedAt, LastErrorAt              *time.Time
	LastError                           string
	NodesReady, NodesNotReady, Cordoned int
	Pods                                int
}

// PoolBootView is a pool's run of machines that failed to boot: how many of its Limit, the
// last failure (when, and its reason and numbers in the page's language), and either since
// when the pool fails or, while it backs off, when it asks for a machine again (nil when it
// does not).
type PoolBootView struct {
	Failures, Limit int
	FailingSince    *time.Time
	RetryAt         *time.Time
	LastAt          *time.Time
	Last            string
}

// PoolBooking is a reservation of the pool's spec: GPUs cards for Project from Starts to
// Ends, held (and the pool grown for it) from HoldFrom. It books cards of the spec in every
// pool of the spec, not this pool's alone.
type PoolBooking struct {
	Project                string
	GPUs                   int
	HoldFrom, Starts, Ends time.Time
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
	// HourlyCostFen is what a scale-up's machines cost per hour at list price; 0 when unknown.
	HourlyCostFen int64
}

// Where a pool's list price came from, the values of PoolView.PriceSource.
const (
	PriceFromProvider = "provider"
	PriceFromSettings = "settings"
)

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
	Errors map[string]views.FormError
	// Flavors are the choices of the flavor select: the provider's flavors where the pool's
	// machines are. Without them the flavor is typed; FlavorsErr says why the provider's
	// list could not be read, "" when it was.
	Flavors    []FlavorOption
	FlavorsErr string
}

// FlavorOption is a machine type of the flavor select; MemoryMiB is each GPU's memory.
type FlavorOption struct {
	Name      string
	GPUModel  string
	GPUs      int
	MemoryMiB int64
}

// PoolFieldGroup is a fieldset of the configuration form; TitleKey is the catalog key of
// its legend.
type PoolFieldGroup struct {
	TitleKey string
	Fields   []PoolField
}

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
	// Optional: an empty input is no value, which Default stands for; 0 is a value.
	Optional bool
	// Choices are a PoolInputChoice's values, the default first; each is labelled by the
	// catalog key LabelKey + "." + the value.
	Choices []string
	// Backend is the backend the setting is for, "" for every pool's: the form shows it
	// only while its backend is chosen.
	Backend string
}

// Kinds of configuration inputs, the values of PoolField.Kind.
const (
	PoolInputText  = "text"
	PoolInputCheck = "check"
	// PoolInputCount takes a whole number, PoolInputNumber decimals too.
	PoolInputCount  = "count"
	PoolInputNumber = "number"
	// PoolInputChoice picks one of the field's Choices.
	PoolInputChoice = "choice"
)

// Units of pool settings, the values of PoolField.Unit.
const (
	UnitMinutes = "min"
	UnitHours   = "h"
	UnitPercent = "%"
	// UnitYuanHour is yuan per machine-hour, entered with at most two decimals.
	UnitYuanHour = "¥/h"
)

// Problems of the configuration form's inputs, the values of FormError.Code.
const (
	// FormErrRange: the number is outside its PoolField's Min to Max.
	FormErrRange = "range"
	// FormErrYuan: the amount is not yuan with at most two decimals.
	FormErrYuan = "yuan"
	// FormErrChoice: the value is none of its PoolField's Choices.
	FormErrChoice = "choice"
	// FormErrRule: a rule of the flavor choice, Text its code (FlavorErr*) and
	// Args its numbers.
	FormErrRule = "rule"
)

// Problems of the chosen flavor, the Text of a FormErrRule beside the flavor.
const (
	// FlavorErrUnknown: the provider does not offer it where the pool is (Args: the flavor,
	// the region and zone).
	FlavorErrUnknown = "flavor-unknown"
	// FlavorErrGPUs: its GPU count is not the pool's GPUs per node (Args: the flavor, its
	// GPUs, the pool's).
	FlavorErrGPUs = "flavor-gpus"
)

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
	// Measured: the list loads what the change saved (the latest changes only).
	Measured bool
}

// ConfigChange is one setting a version changed, with its values as the form holds them.
type ConfigChange struct {
	Field         PoolField
	Before, After string
}
