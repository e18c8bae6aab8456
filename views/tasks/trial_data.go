package tasks

import (
	"kashi/api"
	"kashi/views"
)

// TrialFormValues are the trial form's inputs as typed.
type TrialFormValues struct {
	From                                 string
	Specs                                []string
	Sizes, BoundMin, WorkUnits, FullGPUs string
}

// TrialFormData is the trial form: the task it tries (FromID, FromName, Project), the specs
// to choose from, the values and the problems of a refused submit.
type TrialFormData struct {
	FromID            int64
	FromName, Project string
	SpecChoices       []string
	Values            TrialFormValues
	Problems          views.Problems
}

// TrialPageData is a trial's page: the trial with its runs' figures and proposal, and
// whether the viewer may submit its full run.
type TrialPageData struct {
	Trial  api.Trial
	CanRun bool
}
