package tasks

import (
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
)

// stateParam is the ?state= of the tasks page: "" for any, else one of api.TaskStates; any
// other value is a 400 naming state.
func stateParam(c echo.Context) (api.TaskState, error) {
	return checkState(c.QueryParam("state"))
}

// statesParam is the ?state= of the task listing: "" for any, else a comma-separated list of
// api.TaskStates; any other value in it is a 400 naming state.
func statesParam(c echo.Context) ([]string, error) {
	var out []string
	for s := range strings.SplitSeq(c.QueryParam("state"), ",") {
		st, err := checkState(s)
		if err != nil {
			return nil, err
		}
		if st != "" {
			out = append(out, string(st))
		}
	}
	return out, nil
}

// checkState is s as a task state, "" for ""; any other value is a 400 naming state.
func checkState(v string) (api.TaskState, error) {
	s := api.TaskState(v)
	if s != "" && !slices.Contains(api.TaskStates(), s) {
		names := make([]string, 0, len(api.TaskStates()))
		for _, st := range api.TaskStates() {
			names = append(names, string(st))
		}
		return "", handlers.BadRequest("state", "state must be one of "+strings.Join(names, ", "))
	}
	return s, nil
}
