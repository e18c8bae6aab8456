package tasks

import (
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/handlers"
)

// stateParam is the ?state= of a task listing: "" for any, else one of api.TaskStates; any
// other value is a 400 naming state.
func stateParam(c echo.Context) (api.TaskState, error) {
	s := api.TaskState(c.QueryParam("state"))
	if s != "" && !slices.Contains(api.TaskStates(), s) {
		names := make([]string, 0, len(api.TaskStates()))
		for _, st := range api.TaskStates() {
			names = append(names, string(st))
		}
		return "", handlers.BadRequest("state", "state must be one of "+strings.Join(names, ", "))
	}
	return s, nil
}
