package tasks

import (
	"cmp"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/a-h/templ"

	"kashi/phrase"
	"kashi/views"
)

// submitFromURL opens the submit form filled from a template.
func submitFromURL(id int64) templ.SafeURL {
	return templ.SafeURL("/queue?template=" + strconv.FormatInt(id, 10) + "#task-form")
}

// SubmitAdvisedURL opens the submit form from template id with gpus cards of spec, as its
// advice asks.
func SubmitAdvisedURL(id int64, gpus int, spec string) templ.SafeURL {
	return templ.SafeURL("/queue?template=" + strconv.FormatInt(id, 10) + "&gpus=" + strconv.Itoa(gpus) + "&spec=" +
		url.QueryEscape(spec) + "#task-form")
}

// scheduleAction is the form action that suspends a running schedule or resumes a
// suspended one.
func scheduleAction(id int64, suspended bool) templ.SafeURL {
	verb := "/suspend"
	if suspended {
		verb = "/resume"
	}
	return templ.SafeURL("/schedules/" + strconv.FormatInt(id, 10) + verb)
}

// overlapText names a schedule's overlap policy.
func overlapText(l phrase.Locale, o string) string {
	switch o {
	case "allow":
		return l.T("sched.overlap.allow")
	case "skip":
		return l.T("sched.overlap.skip")
	case "replace":
		return l.T("sched.overlap.replace")
	}
	return o
}

// runOutcomeText names what became of a schedule's run.
func runOutcomeText(l phrase.Locale, o string) string {
	switch o {
	case "pending":
		return l.T("sched.outcome.pending")
	case "submitted":
		return l.T("sched.outcome.submitted")
	case "skipped":
		return l.T("sched.outcome.skipped")
	case "missed":
		return l.T("sched.outcome.missed")
	case "failed":
		return l.T("sched.outcome.failed")
	}
	return o
}

// templateNotice confirms what was just saved on a template's page.
func templateNotice(l phrase.Locale, d TemplateData) string {
	switch d.Notice {
	case NoticeRolledBack:
		if len(d.Versions) > 0 && d.Versions[0].Restores > 0 {
			return l.T("tpl.notice.rolled_back", d.Versions[0].Restores, d.Version)
		}
		return l.T("tpl.notice.saved")
	case NoticeUnchanged:
		return l.T("tpl.notice.unchanged")
	case NoticeCreated:
		return l.T("tpl.notice.created")
	case NoticeSaved:
		return l.T("tpl.notice.saved")
	case NoticeScheduled:
		return l.T("sched.notice.created")
	case NoticeSuspended:
		return l.T("sched.notice.suspended")
	case NoticeResumed:
		return l.T("sched.notice.resumed")
	}
	return ""
}

// atoiOr is s as a whole number, 0 when it is not one.
func atoiOr(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// errOf returns the text of the problem of input name, "" for none.
func (f TemplateForm) errOf(l phrase.Locale, name string) string {
	e, ok := f.Errors[name]
	if !ok {
		return ""
	}
	return views.FormErrorText(l, e)
}

// invalid is aria-invalid="true" for an input with a problem, nothing otherwise; the form's
// first input with a problem gets autofocus too.
func (f TemplateForm) invalid(name string) templ.Attributes {
	if _, bad := f.Errors[name]; !bad {
		return nil
	}
	if name == f.firstBad() {
		return templ.Attributes{"aria-invalid": "true", "autofocus": true}
	}
	return templ.Attributes{"aria-invalid": "true"}
}

// templateFields are the template form's inputs in its order.
var templateFields = []string{"name", "description", "gpus", "specs", "regions", "queue", "priority", "est_gpu_hours",
	"max_runtime_h", "max_attempts", "min_inter_node_gbps", "min_storage_mbps", "command", "env_names", "workdir", "image", "data_check",
	"data_locations", "rerun_on_failure", "allow_no_interconnect"}

// templateLabels are the catalog keys of the template form's labels beyond the submit form's.
var templateLabels = map[string]string{"name": "tpl.name", "description": "tpl.description", "env_names": "tpl.env_names",
	"image": "tpl.image", "data_locations": "tpl.data_locations"}

// firstBad is the form's first input with a problem; "" when none has one.
func (f TemplateForm) firstBad() string {
	for _, name := range templateFields {
		if _, bad := f.Errors[name]; bad {
			return name
		}
	}
	return ""
}

// problemList is every input's problem in form order, each led by the input's label.
func (f TemplateForm) problemList(l phrase.Locale) []fieldProblem {
	var out []fieldProblem
	for _, name := range templateFields {
		if _, bad := f.Errors[name]; bad {
			out = append(out, fieldProblem{Name: name, Label: l.T(cmp.Or(templateLabels[name], formLabels[name])), Text: f.errOf(l, name)})
		}
	}
	return out
}

// runTime is a planned run in its zone with its weekday: "2026-03-02 Mon 22:00 CST".
func runTime(l phrase.Locale, t time.Time) string {
	return t.Format("2006-01-02") + " " + views.WeekdayNames(l)[t.Weekday()] + " " + t.Format("15:04 MST")
}

// stageAfterText is the stages a pipeline template's stage follows: "clean, train" (after
// they succeeded), those it follows whatever their outcome marked, or "—" for none.
func stageAfterText(l phrase.Locale, st TemplateStageView) string {
	names := append([]string(nil), st.After...)
	for _, n := range st.AfterEnded {
		names = append(names, l.T("ptpl.after_ended", n))
	}
	if len(names) == 0 {
		return "—"
	}
	return strings.Join(names, l.T("ptpl.sep"))
}
