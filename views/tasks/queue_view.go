package tasks

import (
	"strconv"
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
	case api.ReasonQuota, api.ReasonNoSuchCapacity, api.ReasonInvalid:
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
	"max_runtime_h", "command", "env", "workdir", "data_check"}

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

// invalid is aria-invalid="true" for an input with a problem, nothing otherwise.
func (f TaskForm) invalid(name string) templ.Attributes {
	if _, bad := f.Errors[name]; bad {
		return templ.Attributes{"aria-invalid": "true"}
	}
	return nil
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
