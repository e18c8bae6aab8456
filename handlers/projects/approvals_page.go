package projects

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	"kashi/views"
	projectsview "kashi/views/projects"
)

// ApprovalsPage lists the requests of the projects the caller leads (all for admins): pending
// ones with their context (requestContext) and approve/reject forms, then recent decisions.
// GET /approvals.
func (h *Handler) ApprovalsPage(c echo.Context) error {
	d, err := h.approvalsData(c)
	if err != nil {
		return err
	}
	if id, err := strconv.ParseInt(c.QueryParam("done"), 10, 64); err == nil {
		d.Notice = projectsview.DecidedNotice(handlers.Locale(c), id, c.QueryParam("approved") == "1")
	}
	return handlers.Render(c, http.StatusOK, projectsview.Approvals(handlers.Locale(c), d))
}

func (h *Handler) approvalsData(c echo.Context) (projectsview.ApprovalsData, error) {
	p := handlers.Who(c)
	ctx := c.Request().Context()
	rows, err := h.store.QuotaRequests(ctx, handlers.VisibleProjects(p), "")
	if err != nil {
		return projectsview.ApprovalsData{}, err
	}
	var world *requestWorld
	l := handlers.Locale(c)
	d := projectsview.ApprovalsData{Now: h.Now()}
	for _, r := range rows {
		if !p.Leads(r.ProjectID) {
			continue
		}
		v := requestView(l, r)
		if r.State == models.RequestPending {
			if world == nil {
				w, err := h.loadRequestWorld(ctx)
				if err != nil {
					return d, err
				}
				world = &w
			}
			v.CanDecide = r.RequestedBy != p.User.ID
			v.Context = world.requestContext(l, r)
			v.Admin = p.Admin()
			v.CanApprove = v.CanDecide && (v.Admin || v.Context == nil || v.Context.NeedsAdmin == "")
			d.Pending = append(d.Pending, v)
		} else {
			d.Decided = append(d.Decided, v)
		}
	}
	return d, h.linkChanges(c, d.Decided)
}

// linkChanges links each approved request of rows to the page of the quota change it made.
func (h *Handler) linkChanges(c echo.Context, rows []projectsview.RequestView) error {
	if !slices.ContainsFunc(rows, func(r projectsview.RequestView) bool { return r.State == models.RequestApproved }) {
		return nil
	}
	es, err := h.store.QuotaEdits(c.Request().Context(), 0, time.Time{}, time.Time{})
	if err != nil {
		return err
	}
	made := map[int64]models.QuotaEdit{}
	for _, e := range es {
		if e.RequestID != 0 && e.Before != nil { // a project's first quota is no change
			made[e.RequestID] = e
		}
	}
	for i, r := range rows {
		if e, ok := made[r.ID]; ok && r.State == models.RequestApproved {
			rows[i].ChangeURL = views.QuotaChangeURL(e.ProjectID, e.ID)
		}
	}
	return nil
}

// ApprovalDecide approves or rejects a request from the approvals page.
// POST /approvals/:id (decision=approve|reject, comment).
func (h *Handler) ApprovalDecide(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	decision := c.FormValue("decision")
	if decision != "approve" && decision != "reject" {
		return handlers.BadRequest("decision", "decision must be approve or reject")
	}
	comment := c.FormValue("comment")
	if decision == "reject" {
		comment = cmp.Or(c.FormValue("reason"), comment)
	}
	_, err = h.decide(c, id, decision == "approve", comment)
	var he *echo.HTTPError
	var fe *models.FieldError
	aboveContract := errors.As(err, &fe) // 403 naming the value above the contract
	if errors.As(err, &he) && (he.Code == http.StatusConflict || he.Code == http.StatusUnprocessableEntity || aboveContract) {
		d, derr := h.approvalsData(c)
		if derr != nil {
			return derr
		}
		l := handlers.Locale(c)
		if ps, ok := handlers.FormProblems(l, err, nil); ok {
			// The question comes back open, with its problem and the cursor where it is.
			d.Problems, d.Asking, d.AskDecision = ps, id, decision
		} else {
			d.Problems = views.Problems{{Text: handlers.Problem(l, err)}}
		}
		return handlers.Render(c, he.Code, projectsview.Approvals(l, d))
	}
	if err != nil {
		return err
	}
	approved := "0"
	if decision == "approve" {
		approved = "1"
	}
	return c.Redirect(http.StatusSeeOther, fmt.Sprintf("/approvals?done=%d&approved=%s", id, approved))
}
