package tasks

import (
	"time"

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

// TrialsData is the trials page: the latest trials as GET /api/v1/trials lists them, the
// project filtered by ("" for every project the viewer sees) and the projects to choose
// from, and now, for the times.
type TrialsData struct {
	Trials   []api.Trial
	Project  string
	Projects []string
	Now      time.Time
}
