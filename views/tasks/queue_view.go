package tasks

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"

	"kashi/api"
	"kashi/phrase"
	"kashi/views"
)

// Helpers of the queue page's templates.

// laneHelp says what a lane is for.
func laneHelp(l phrase.Locale, name string, d QueueData) string {
	switch name {
	case views.LaneShort:
		return l.T("queue.lane.short_help", l.Duration(d.Form.ShortMax))
	case views.LaneService:
		return l.T("queue.lane.service_help")
	}
	return l.T("queue.lane.long_help")
}

// priorityText names a priority.
func priorityText(l phrase.Locale, p string) string {
	switch p {
	case "urgent":
		return l.T("prio.urgent")
	case "high":
		return l.T("prio.high")
	case "normal":
		return l.T("prio.normal")
	case "low":
		return l.T("prio.low")
	}
	return p
}

// specText names a spec, "any spec" for none.
func specText(l phrase.Locale, spec string) string {
	if spec == "" {
		return l.T("spec.any")
	}
	return spec
}

// gpusText is "4 × A100-80G".
func gpusText(l phrase.Locale, gpus int, spec string) string {
	return l.T("queue.gpus_of", l.Int(gpus), specText(l, spec))
}

// reasonClass is the class attribute of a reason badge: a data check that does not answer
// blocks like a quota does.
func reasonClass(r views.QueueRow) string {
	if r.Detail == views.DetailDataCheckSilent {
		return "reason r-blocked"
	}
	switch r.Reason {
	case api.ReasonStarting, api.ReasonNew:
		return "reason r-starting"
	case api.ReasonNoFreeGPUs, api.ReasonBehind:
		return "reason r-capacity"
	case api.ReasonDataNotReady, api.ReasonOffPeakOnly, api.ReasonReservationWindow:
		return "reason r-self"
	case api.ReasonQuota, api.ReasonNoSuchCapacity, api.ReasonInvalid, api.ReasonNoSuitablePlace:
		return "reason r-blocked"
	}
	return "reason"
}

// eta is an estimated start relative to now: "in ~2h 10m", "now", "unknown".
func eta(l phrase.Locale, at, now time.Time) string {
	switch d := at.Sub(now); {
	case at.IsZero():
		return l.T("eta.unknown")
	case d < time.Minute:
		return l.T("eta.now")
	default:
		return l.T("eta.in", l.Duration(d))
	}
}

// etaTitle is the absolute time of an estimate, for its tooltip; "" when unknown.
func etaTitle(at time.Time) string {
	if at.IsZero() {
		return ""
	}
	return at.UTC().Format("2006-01-02 15:04 MST")
}

// cardHours formats estimated card-hours with at most one decimal; "—" for none.
func cardHours(l phrase.Locale, h float64) string {
	if !(h > 0) {
		return "—"
	}
	tenths := int64(h*10 + 0.5)
	s := string(phrase.AppendInt(nil, tenths/10))
	if f := tenths % 10; f != 0 {
		s += "." + strconv.FormatInt(f, 10)
	}
	return s
}

// formFields are the input names that show a problem beside them, in form order.
var formFields = []string{"project", "name", "owner", "gpus", "specs", "regions", "queue", "priority", "est_gpu_hours",
	"max_runtime_h", "max_attempts", "min_inter_node_gbps", "min_storage_mbps", "command", "env", "image", "workdir", "data_check",
	"rerun_on_failure", "allow_no_interconnect"}

// errOf returns the text of the problem of input name, "" for none.
// serviceInvalid reports whether one of the service's inputs has a problem: their group
// opens to show it.
func (f TaskForm) serviceInvalid() bool {
	for _, name := range []string{"model", "replicas", "metrics_port", "metrics_path", "health_path", "ttft_target_ms"} {
		if _, ok := f.Errors[name]; ok {
			return true
		}
	}
	return false
}

func (f TaskForm) errOf(l phrase.Locale, name string) string {
	e, ok := f.Errors[name]
	if !ok {
		return ""
	}
	return views.FormErrorText(l, e)
}

// runtimeOf is how long a running task has run.
func runtimeOf(t RunningTask, now time.Time) time.Duration { return now.Sub(t.StartedAt) }

// invalid is aria-invalid="true" for an input with a problem, nothing otherwise; the first
// input with a problem (in the form's order) gets autofocus too, so that a refused submit
// comes back with the cursor where the first fix is. Inline validation re-renders no input,
// so it never moves the cursor.
func (f TaskForm) invalid(name string) templ.Attributes {
	if _, bad := f.Errors[name]; !bad {
		return nil
	}
	if name == f.firstBad() {
		return templ.Attributes{"aria-invalid": "true", "autofocus": true}
	}
	return templ.Attributes{"aria-invalid": "true"}
}

// allFields are the inputs that may show a problem, in form order: formFields, then the
// service's.
var allFields = append(slices.Clip(formFields), "model", "replicas", "metrics_port", "metrics_path", "health_path", "ttft_target_ms")

// firstBad is the first input of the form with a problem; "" when none has one.
func (f TaskForm) firstBad() string {
	for _, name := range allFields {
		if _, bad := f.Errors[name]; bad {
			return name
		}
	}
	return ""
}

// problemList is every input's problem in form order, each led by the input's label, for the
// form's status: the whole form is named at once.
func (f TaskForm) problemList(l phrase.Locale) []fieldProblem {
	var out []fieldProblem
	for _, name := range allFields {
		if _, bad := f.Errors[name]; bad {
			out = append(out, fieldProblem{Name: name, Label: l.T(formLabels[name]), Text: f.errOf(l, name)})
		}
	}
	return out
}

// fieldProblem is one input's problem in the form's status.
type fieldProblem struct{ Name, Label, Text string }

// formLabels are the catalog keys of the inputs' labels.
var formLabels = map[string]string{"project": "form.project", "name": "form.name", "owner": "form.owner", "gpus": "form.gpus",
	"specs": "form.specs", "regions": "form.regions", "queue": "form.queue", "priority": "form.priority", "est_gpu_hours": "form.est",
	"max_runtime_h": "form.max_runtime", "command": "form.command", "env": "form.env", "workdir": "form.workdir", "image": "form.image",
	"data_check": "form.data_check", "model": "form.model", "replicas": "form.replicas", "metrics_port": "form.metrics_port",
	"metrics_path": "form.metrics_path", "health_path": "form.health_path", "ttft_target_ms": "form.ttft_target",
	"max_attempts": "form.max_attempts", "rerun_on_failure": "form.rerun_on_failure",
	"min_inter_node_gbps": "form.min_inter_node_gbps", "min_storage_mbps": "form.min_storage_mbps",
	"allow_no_interconnect": "form.allow_no_interconnect"}

// problemsText is the form's status above its problems: how many there are.
func problemsText(l phrase.Locale, n int) string {
	if n == 1 {
		return l.T("form.fix")
	}
	return l.T("form.fix_many", l.Int(n))
}

// queuedText is where a task just submitted stands: its lane, its position and when it is
// expected to start, or that it starts at the next tick.
func queuedText(l phrase.Locale, q QueuedTask) string {
	if q.Wait.Position == 0 {
		return l.T("form.created_next", views.LaneTitle(l, q.Lane))
	}
	return l.T("form.created_place", views.LaneTitle(l, q.Lane), l.Int(q.Wait.Position), eta(l, q.Wait.ETAP50, q.Now), eta(l, q.Wait.ETAP90, q.Now))
}

// fieldClass is the class attribute of a form field with the extra class, if any.
func fieldClass(extra string) string {
	if extra == "" {
		return "form-field"
	}
	return "form-field " + extra
}

// warningText is a dry run's warning (TaskEstimate.Warnings) in words.
func warningText(l phrase.Locale, w string) string {
	switch w {
	case WarnQuota:
		return l.T("est.warn.quota")
	case WarnOverflow:
		return l.T("est.warn.overflow")
	case WarnBudget:
		return l.T("est.warn.budget")
	}
	return w
}

// dataCheckHelp says what the data check takes: a path or a URL, or a URL only on a server
// that checks no paths (the store refuses a path there).
func dataCheckHelp(l phrase.Locale, f TaskForm) string {
	if f.PathChecks {
		return l.T("form.help.data_check")
	}
	return l.T("form.help.data_check_url")
}

// accessPolicy names what a spec's access rests on: "quota", else the pools' rule for a
// project without one (views.NoQuota*).
func accessPolicy(a views.SpecAccess) string {
	if a.Quota {
		return "quota"
	}
	return a.Policy
}

// commandHelp is the command's help; on the demo it says which commands its simulated nodes
// run, since any other fails to start there.
func commandHelp(l phrase.Locale, f TaskForm) string {
	if f.Demo {
		return l.T("form.help.command") + " " + l.T("form.help.command_demo")
	}
	return l.T("form.help.command")
}

// poolAttrsText is what pool p states for work across cards and nodes and for storage, in
// one line; prefixed by the pool's name when its place has several pools.
func poolAttrsText(l phrase.Locale, p views.PoolAttrs, several bool) string {
	text := strings.Join(views.AttributeParts(l, p), l.T("attr.sep"))
	if several {
		return l.T("attr.pool", p.Pool, text)
	}
	return text
}
