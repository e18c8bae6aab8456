package people

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	peopleview "kashi/views/people"
)

// SSORulesPage lists the sign-in mapping rules (stored and configured) with the add form
// (admins). ?saved and ?deleted say what just changed. GET /people/sso.
func (h *Handler) SSORulesPage(c echo.Context) error {
	d, err := h.ssoData(c, peopleview.SSORuleForm{Method: models.SourceOIDC, Role: models.ProjectRoleMember})
	if err != nil {
		return err
	}
	switch l := handlers.Locale(c); {
	case c.QueryParams().Has("saved"):
		d.Notice = l.T("sso.saved")
	case c.QueryParams().Has("deleted"):
		d.Notice = l.T("sso.deleted")
	}
	return handlers.Render(c, http.StatusOK, peopleview.SSO(handlers.Locale(c), d))
}

// ssoData reads the mapping page: the configuration's rules first, then the stored ones.
func (h *Handler) ssoData(c echo.Context, f peopleview.SSORuleForm) (peopleview.SSOData, error) {
	ctx := c.Request().Context()
	rules, err := h.store.SSORules(ctx)
	if err != nil {
		return peopleview.SSOData{}, err
	}
	ps, err := h.store.Projects(ctx)
	if err != nil {
		return peopleview.SSOData{}, err
	}
	d := peopleview.SSOData{Form: f, Methods: models.SSOMethods}
	for _, p := range ps {
		d.Projects = append(d.Projects, p.Name)
	}
	for _, r := range append(append([]models.SSORule{}, h.Cfg.SSORules...), rules...) {
		d.Rules = append(d.Rules, peopleview.SSORuleRow{ID: r.ID, Method: r.Method, Group: r.GroupName, Project: r.ProjectName,
			Role: r.Role, Configured: r.Configured, CreatedBy: r.CreatedBy})
	}
	return d, nil
}

// SSORuleFormCreate adds a rule: back to the list, or the page with the refused fields
// (422). POST /people/sso.
func (h *Handler) SSORuleFormCreate(c echo.Context) error {
	f := peopleview.SSORuleForm{Method: c.FormValue("method"), Group: c.FormValue("group"), Project: c.FormValue("project"), Role: c.FormValue("role")}
	_, err := h.store.CreateSSORule(c.Request().Context(), handlers.Who(c).User.Name,
		models.SSORule{Method: f.Method, GroupName: f.Group, ProjectName: f.Project, Role: f.Role}, h.Now())
	ps, ok := handlers.FormProblems(handlers.Locale(c), err, peopleview.SSORuleFields)
	switch {
	case err == nil:
		return c.Redirect(http.StatusSeeOther, "/people/sso?saved")
	case !ok:
		return err
	}
	f.Problems = ps
	d, err := h.ssoData(c, f)
	if err != nil {
		return err
	}
	return handlers.Render(c, http.StatusUnprocessableEntity, peopleview.SSO(handlers.Locale(c), d))
}

// SSORuleFormDelete removes a stored rule; an unknown one is 404. POST /people/sso/:id/delete.
func (h *Handler) SSORuleFormDelete(c echo.Context) error {
	id, err := handlers.PathID(c)
	if err != nil {
		return err
	}
	if err := h.store.DeleteSSORule(c.Request().Context(), handlers.Who(c).User.Name, id, h.Now()); err != nil {
		return handlers.StoreError(err)
	}
	return c.Redirect(http.StatusSeeOther, "/people/sso?deleted")
}
