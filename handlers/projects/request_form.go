package projects

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	"kashi/views"
	projectsview "kashi/views/projects"
)

// RequestFormSubmit files a quota request from the projects page. On bad input the page comes
// back (422) with the message on the form. POST /projects/requests.
func (h *Handler) RequestFormSubmit(c echo.Context) error {
	f := views.RequestForm{Project: c.FormValue("project"), Spec: c.FormValue("spec"), Kind: c.FormValue("kind"),
		Value: c.FormValue("value"), Begins: c.FormValue("begins"), Ends: c.FormValue("ends"), Reason: c.FormValue("reason"),
		Region: c.FormValue("region"), Repeat: c.FormValue("repeat"), Until: c.FormValue("until")}
	if fp, err := c.FormParams(); err == nil {
		f.Weekdays = fp["weekday"]
	}
	b, err := h.requestFromForm(f)
	if err == nil {
		var req models.QuotaRequest
		if req, err = h.fileRequest(c, b); err == nil {
			return c.Redirect(http.StatusSeeOther, "/projects?sent="+strconv.FormatInt(req.ID, 10))
		}
	}
	var he *echo.HTTPError
	if errors.As(err, &he) && he.Code == http.StatusForbidden {
		return err
	}
	f.Error = handlers.Problem(handlers.Locale(c), err)
	d, derr := h.projectsData(c, f)
	if derr != nil {
		return derr
	}
	return handlers.Render(c, http.StatusUnprocessableEntity, projectsview.Projects(handlers.Locale(c), d))
}

// requestFromForm reads the form's fields for the request's kind. Times are local to the
// billing time zone, as a datetime-local input gives them.
func (h *Handler) requestFromForm(f views.RequestForm) (requestBody, error) {
	b := requestBody{Project: f.Project, Spec: f.Spec, Kind: f.Kind, Reason: f.Reason}
	parseTime := func(field, v string) (*time.Time, error) {
		t, err := time.ParseInLocation("2006-01-02T15:04", v, h.Loc())
		if err != nil {
			return nil, models.Invalid(field, "give a date and time")
		}
		return &t, nil
	}
	var err error
	switch f.Kind {
	case models.RequestLimit, models.RequestBudget:
		n, perr := strconv.ParseInt(f.Value, 10, 32)
		if perr != nil {
			return b, models.Invalid("value", "give a whole number")
		}
		b.Change.MaxGPUs, b.Change.AddCardHours = int(n), n
		if f.Kind == models.RequestLimit {
			b.Change.AddCardHours = 0
		} else {
			b.Change.MaxGPUs = 0
		}
	case models.RequestGuarantee:
		n, perr := strconv.Atoi(strings.TrimSpace(f.Value))
		if perr != nil {
			return b, &models.FieldError{Field: "value", Msg: "give a whole number of GPUs"}
		}
		b.Change.GuaranteedGPUs = &n
	case models.RequestOverflow:
		yes := true
		b.Change.OverflowAllowed = &yes
		if strings.TrimSpace(f.Value) != "" {
			b.Change.OverflowRateFen, err = handlers.ParseYuan("value", f.Value, false)
		}
	case models.RequestExtend:
		b.Change.EndsAt, err = parseTime("ends", f.Ends)
	case models.RequestReservation:
		n, perr := strconv.Atoi(strings.TrimSpace(f.Value))
		if perr != nil {
			return b, models.Invalid("value", "give a whole number of GPUs")
		}
		// The times are the billing zone's, and a refusal names its window in it.
		b.Change.ReserveGPUs, b.Change.ReserveRegion, b.Change.ReserveZone = n, f.Region, h.Loc().String()
		if b.Change.ReserveBegins, err = parseTime("begins", f.Begins); err == nil {
			b.Change.ReserveEnds, err = parseTime("ends", f.Ends)
		}
		if err == nil && f.Repeat != "" {
			b.Change.ReserveRepeat, b.Change.ReserveWeekdays = f.Repeat, f.Weekdays
			// The end date is a day: windows beginning on it are in.
			until, perr := time.ParseInLocation(time.DateOnly, f.Until, h.Loc())
			if perr != nil {
				return b, models.Invalid("until", "give a date")
			}
			until = until.AddDate(0, 0, 1).Add(-time.Second)
			b.Change.ReserveUntil = &until
		}
	case models.RequestOverride:
		n, perr := strconv.Atoi(f.Value)
		if perr != nil {
			return b, models.Invalid("value", "give a whole number of GPUs")
		}
		b.Change.OverrideMaxGPUs = n
		if b.Change.OverrideBegins, err = parseTime("begins", f.Begins); err == nil {
			b.Change.OverrideEnds, err = parseTime("ends", f.Ends)
		}
	}
	return b, err
}
