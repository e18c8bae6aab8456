package tasks

import (
	"strconv"
	"strings"

	"kashi/api"
	"kashi/phrase"
	"kashi/views"
)

// PipelinesData is the pipelines page: the pipelines the viewer sees, newest first.
type PipelinesData struct {
	Pipelines []api.Pipeline
	// CanSubmit shows the form that submits a pipeline file (to those who run some project's
	// tasks); Form is its text and problem.
	CanSubmit bool
	// CanTemplate offers to save the form's text as a pipeline template instead (to the
	// leads of some project and admins).
	CanTemplate bool
	Form        PipelineForm
}

// PipelineForm is the /pipelines form: the pipeline file's text, and why it was refused;
// Open shows it unfolded (/pipelines?new, or a refused text).
type PipelineForm struct {
	Text, Problem string
	Open          bool
}

// invalid is the text area's aria-invalid: whether the text was refused.
func (f PipelineForm) invalid() string { return strconv.FormatBool(f.Problem != "") }

// pipelineExample is the form's placeholder: a pipeline file, as `kashi submit --pipeline`
// takes it (the same in every language: its keys are the API's).
const pipelineExample = `name: nightly
project: vision
stages:
  - name: clean
    spec: RTX4090-24G
    gpus: 1
    command: [python, clean.py]
    output: /data/vision/clean
  - name: train
    after: [clean]
    spec: A100-80G
    gpus: 16
    command: [torchrun, train.py]`

// PipelineData is one pipeline's page: its stages laid out in layers (each stage one layer
// below its deepest parent), what it was estimated to take and what it took, and whether the
// viewer may rerun it.
type PipelineData struct {
	P      api.Pipeline
	Layers [][]api.Stage
	CanRun bool
	// Notice confirms what a form just did: NoticeSubmitted, NoticeRerun or NoticeCancelled
	// (another is shown as none).
	Notice string
}

// Notices of the pipeline page: the pipeline submitted, a rerun started, the pipeline
// cancelled.
const (
	NoticeSubmitted = "submitted"
	NoticeRerun     = "rerun"
	NoticeCancelled = "cancelled"
)

// noticeText is the pipeline page's notice n in l; "" for a notice it does not know.
func noticeText(l phrase.Locale, n string) string {
	switch n {
	case NoticeSubmitted:
		return l.T("pipe.submitted_done")
	case NoticeRerun:
		return l.T("pipe.rerun_done")
	case NoticeCancelled:
		return l.T("pipe.cancel_done")
	}
	return ""
}

// Layers lays stages out by depth: a stage with no parent is in the first layer, any other
// one layer below its deepest parent. Stages come parents first, so one pass suffices.
func Layers(stages []api.Stage) [][]api.Stage {
	depth := map[string]int{}
	var out [][]api.Stage
	for _, st := range stages {
		d := 0
		for _, p := range append(append([]string{}, st.After...), st.AfterEnded...) {
			d = max(d, depth[p]+1)
		}
		depth[st.Name] = d
		for len(out) <= d {
			out = append(out, nil)
		}
		out[d] = append(out[d], st)
	}
	return out
}

// pipelineStateText names a pipeline's state.
func pipelineStateText(l phrase.Locale, state string) string {
	switch state {
	case api.PipelineSucceeded:
		return l.T("pipe.state.succeeded")
	case api.PipelineFailed:
		return l.T("pipe.state.failed")
	case api.PipelineCancelled:
		return l.T("pipe.state.cancelled")
	}
	return l.T("pipe.state.running")
}

// stageStateText names a stage's state.
func stageStateText(l phrase.Locale, state string) string {
	switch state {
	case api.StageSubmitted:
		return l.T("stage.state.submitted")
	case api.StageSucceeded:
		return l.T("stage.state.succeeded")
	case api.StageFailed:
		return l.T("stage.state.failed")
	case api.StageSkipped:
		return l.T("stage.state.skipped")
	}
	return l.T("stage.state.waiting")
}

// stageWhy says why a stage failed or was skipped (a reason as the store keeps it: its
// kind, then its argument).
func stageWhy(l phrase.Locale, reason string) string {
	kind, arg, _ := strings.Cut(reason, " ")
	switch kind {
	case "parent":
		return l.T("stage.why.parent", arg)
	case "task":
		return l.T("stage.why.task", views.TaskStateLabel(l, api.TaskState(arg)))
	case "submit":
		return l.T("stage.why.submit", arg)
	case "cancelled":
		return l.T("stage.why.cancelled", arg)
	}
	return reason
}

// pipelineWhy says where a failed pipeline failed, or who cancelled it.
func pipelineWhy(l phrase.Locale, reason string) string {
	if stage, ok := strings.CutPrefix(reason, "stage "); ok {
		return l.T("pipe.failed_at", stage)
	}
	if who, ok := strings.CutPrefix(reason, "cancelled "); ok {
		return l.T("pipe.cancelled_by", who)
	}
	return reason
}

// fenOrDash is an amount of money, "—" for none.
func fenOrDash(fen int64) string {
	if fen == 0 {
		return "—"
	}
	return views.Yuan(fen)
}

// specOrAny is a stage's spec, or "any spec".
func specOrAny(l phrase.Locale, spec string) string {
	if spec == "" {
		return l.T("pipe.any_spec")
	}
	return spec
}

// joinNames lists stage names.
func joinNames(names []string) string { return strings.Join(names, ", ") }
