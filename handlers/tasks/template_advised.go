package tasks

import (
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"kashi/models"
	tasksview "kashi/views/tasks"
)

// advisedInto fills the submit form from a template with the card count and spec its
// rightsizing advice asks for (?gpus=&spec=, the template page's "submit as advised" link);
// the person still submits, and the submit checks them as any. A count out of range or a
// spec too long is a 400 naming the field.
func advisedInto(c echo.Context, f *tasksview.TaskForm) error {
	if raw := c.QueryParam("gpus"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > models.MaxGPUCount {
			return echo.NewHTTPError(http.StatusBadRequest, "gpus: a whole number from 1 to "+strconv.Itoa(models.MaxGPUCount))
		}
		f.Values.GPUs = strconv.Itoa(n)
	}
	if spec := c.QueryParam("spec"); spec != "" {
		if !utf8.ValidString(spec) || len(spec) > 100 {
			return echo.NewHTTPError(http.StatusBadRequest, "spec: at most 100 bytes of UTF-8")
		}
		f.Values.Specs = []string{spec}
	}
	return nil
}
