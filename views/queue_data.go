package views

import (
	"time"

	"kashi/api"
)

// Lane names, the values of QueueLane.Name.
const (
	LaneShort   = "short"
	LaneLong    = "long"
	LaneService = "service"
)

// Quota details, the values of QueueRow.Detail for api.ReasonQuota.
const (
	DetailBudgetExhausted = "budget-exhausted"
	DetailConcurrentLimit = "concurrent-limit"
	DetailGuaranteedShare = "guaranteed-share"
	// DetailServiceLimit: the project's services hold the cards its quota lets them hold.
	DetailServiceLimit = "service-limit"
	// DetailNoQuota: the project has no quota on the task's specs, and their pools refuse
	// it or let it hold no more.
	DetailNoQuota = "no-quota"
	// DetailBooked refines api.ReasonNoFreeGPUs: the free cards are booked by another project.
	DetailBooked = "booked"
	// DetailDataCheckSilent refines api.ReasonDataNotReady: the task's data check has not
	// answered for longer than models.DataCheckSilentAfter (QueueRow.DataCheckSilent).
	DetailDataCheckSilent = "data-check-silent"
	// DetailNoInterconnect, DetailInterNodeBelow and DetailStorageBelow refine
	// api.ReasonNoSuitablePlace: what the pools of the task's spec lack.
	DetailNoInterconnect = "no-interconnect"
	DetailInterNodeBelow = "inter-node-below-minimum"
	DetailStorageBelow   = "storage-below-minimum"
)

// QueueRow is one pending task.
type QueueRow struct {
	// Position is 1-based in the lane; 0 for a task that starts at the next tick.
	Position int
	TaskID   int64
	Name     string
	Project  string
	Owner    string
	GPUs     int
	Spec     string // asked spec; "" is any
	// Specs are the specs it accepts when it names several.
	Specs []string
	// PlaceSpec and PlaceRegion are where it starts or is expected to, PlaceWhy why there
	// (scheduler.Why…); empty when unknown.
	PlaceSpec, PlaceRegion, PlaceWhy string
	Priority                         string // urgent, high, normal, low
	EstGPUHours                      float64
	DataReady                        bool
	SubmittedAt                      time.Time
	// ETAP50 and ETAP90 are the estimated starts; zero is unknown.
	ETAP50, ETAP90 time.Time
	// Reason is why the task waits; ReasonSpec, Ahead and Detail refine it.
	Reason     api.WaitReason
	ReasonSpec string // for no-free-gpus and no-such-capacity; "" is any
	Ahead      int64  // for behind: the task holding the reservation
	Detail     string // for quota, booked cards, a silent data check and a place that lacks something
	// MinInterNodeGbps and MinStorageMBps are what the task asks of its pools, for
	// api.ReasonNoSuitablePlace.
	MinInterNodeGbps, MinStorageMBps int
	// DataCheckSilent, for DetailDataCheckSilent, is how long the data check has gone without
	// an answer.
	DataCheckSilent time.Duration
	// Quota is the limit a task waiting on its project's concurrent limit waits on.
	Quota *api.QuotaWait
}

// Form error codes, the values of FormError.Code.
const (
	// FormErrStore is a rule of the store; Text says which.
	FormErrStore = "store"
	// FormErrInt: the input is not a whole number.
	FormErrInt = "int"
	// FormErrNumber: the input is not a number.
	FormErrNumber = "number"
	// FormErrEnvLine: line Line of the environment is not KEY=VALUE.
	FormErrEnvLine = "env-line"
	// FormErrEnvDup: line Line of the environment repeats the variable Text.
	FormErrEnvDup = "env-dup"
	// FormErrLocationLine: line Line of the data locations is not region=location.
	FormErrLocationLine = "location-line"
	// FormErrRuntimeOver: the max runtime Asked is over the lane Text's limit Max.
	FormErrRuntimeOver = "runtime-over"
	// FormErrEnvMissing: the template asks for a value of the variable Text.
	FormErrEnvMissing = "env-missing"
)

// FormError is one problem of the form.
type FormError struct {
	Code string
	Text string
	Line int
	// Max and Asked are the limit and the value of FormErrRuntimeOver.
	Max, Asked time.Duration
	// Args are the numbers of a FormErrRule.
	Args []any
}
