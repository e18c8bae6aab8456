package projects

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/api"
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
	} else {
		// What the form could not read, and the reason too: every problem at once.
		var ps models.Problems
		ps.Add(err)
		ps.Add(models.CheckRequestReason(f.Reason))
		err = ps.Err()
	}
	var he *echo.HTTPError
	if errors.As(err, &he) && he.Code == http.StatusForbidden {
		return err
	}
	l := handlers.Locale(c)
	ps, ok := handlers.FormProblemsOf(l, err, views.RequestFields, requestInput)
	if !ok {
		ps = views.Problems{{Text: handlers.Problem(l, err)}}
	}
	f.Problems = ps
	d, derr := h.projectsData(c, f)
	if derr != nil {
		return derr
	}
	return handlers.Render(c, http.StatusUnprocessableEntity, projectsview.Projects(handlers.Locale(c), d))
}

// requestInput is the request form's input a field of the store comes from: the amount
// ("value") of every kind, its times ("begins", "ends", "until") and its region.
func requestInput(field string) string {
	switch field {
	case "max_gpus", "add_card_hours", "guaranteed_gpus", "overflow_rate_fen", "overflow_allowed", "override_max_gpus", "reserve_gpus":
		return "value"
	case "override_begins", "reserve_begins":
		return "begins"
	case "ends_at", "override_ends", "reserve_ends":
		return "ends"
	case "reserve_until":
		return "until"
	case "reserve_region":
		return "region"
	}
	return field
}

// requestFromForm reads the form's fields for the request's kind, naming every one it cannot
// read. Times are local to the billing time zone, as a datetime-local input gives them.
func (h *Handler) requestFromForm(f views.RequestForm) (api.NewQuotaRequest, error) {
	b := api.NewQuotaRequest{Project: f.Project, Spec: f.Spec, Kind: f.Kind, Reason: f.Reason}
	var ps models.Problems
	parseTime := func(field, v string) *time.Time {
		t, err := time.ParseInLocation("2006-01-02T15:04", v, h.Loc())
		if err != nil {
			ps.Add(models.Invalid(field, "give a date and time"))
			return nil
		}
		return &t
	}
	cards := func() int {
		n, err := strconv.Atoi(strings.TrimSpace(f.Value))
		if err != nil {
			ps.Add(models.Invalid("value", "give a whole number of GPUs"))
		}
		return n
	}
	switch f.Kind {
	case models.RequestLimit, models.RequestBudget:
		n, perr := strconv.ParseInt(strings.TrimSpace(f.Value), 10, 32)
		if perr != nil {
			ps.Add(models.Invalid("value", "give a whole number"))
		}
		b.Change.MaxGPUs, b.Change.AddCardHours = int(n), n
		if f.Kind == models.RequestLimit {
			b.Change.AddCardHours = 0
		} else {
			b.Change.MaxGPUs = 0
		}
	case models.RequestGuarantee:
		n := cards()
		b.Change.GuaranteedGPUs = &n
	case models.RequestOverflow:
		yes := true
		b.Change.OverflowAllowed = &yes
		if strings.TrimSpace(f.Value) != "" {
			var err error
			b.Change.OverflowRateFen, err = handlers.ParseYuan("value", f.Value, false)
			ps.Add(err)
		}
	case models.RequestExtend:
		b.Change.EndsAt = parseTime("ends", f.Ends)
	case models.RequestReservation:
		// The times are the billing zone's, and a refusal names its window in it.
		b.Change.ReserveGPUs, b.Change.ReserveRegion, b.Change.ReserveZone = cards(), f.Region, h.Loc().String()
		b.Change.ReserveBegins, b.Change.ReserveEnds = parseTime("begins", f.Begins), parseTime("ends", f.Ends)
		if f.Repeat != "" {
			b.Change.ReserveRepeat, b.Change.ReserveWeekdays = f.Repeat, f.Weekdays
			// The end date is a day: windows beginning on it are in.
			if until, err := time.ParseInLocation(time.DateOnly, f.Until, h.Loc()); err != nil {
				ps.Add(models.Invalid("until", "give a date"))
			} else {
				until = until.AddDate(0, 0, 1).Add(-time.Second)
				b.Change.ReserveUntil = &until
			}
		}
	case models.RequestOverride:
		b.Change.OverrideMaxGPUs = cards()
		b.Change.OverrideBegins, b.Change.OverrideEnds = parseTime("begins", f.Begins), parseTime("ends", f.Ends)
	}
	return b, ps.Err()
}
