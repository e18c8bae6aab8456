package bills

import (
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode"

	"github.com/labstack/echo/v4"

	"kashi/api"
	"kashi/billing"
	"kashi/handlers"
	"kashi/models"
)

// Audit actions of billing.
const (
	auditPriceSet      = "price-set"
	auditPlanSet       = "plan-set"
	auditBillIssue     = "bill-issue"
	auditAdjustmentAdd = "adjustment-add"
)

// Download formats of bills.
const (
	formatJSON = "json"
	formatCSV  = "csv"
	formatXLSX = "xlsx"
)

// Content types of the downloads.
const (
	mimeCSV  = "text/csv; charset=utf-8"
	mimeXLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
)

// errNoProject answers a project that does not exist and one the caller may not see alike,
// so that names cannot be probed.
var errNoProject = echo.NewHTTPError(http.StatusNotFound, api.Error{Error: "no such project", Field: "project"})

// billProject is the project named by the :project path parameter, if the caller may see
// its bills; else 404.
func (h *Handler) billProject(c echo.Context) (models.Project, error) {
	name, err := c.Param("project"), error(nil)
	if c.Request().URL.RawPath != "" {
		name, err = url.PathUnescape(name)
	}
	if err != nil || name == "" || len(name) > 100 {
		return models.Project{}, errNoProject
	}
	p, err := h.store.ProjectByName(c.Request().Context(), name)
	switch {
	case errors.Is(err, models.ErrNotFound):
		return models.Project{}, errNoProject
	case err != nil:
		return models.Project{}, err
	case !handlers.Who(c).SeesBills(p.ID):
		return models.Project{}, errNoProject
	}
	return p, nil
}

// billMonth is a month ("YYYY-MM") from the path or query: 400 naming month unless it is one.
// Whether it has begun is billing's to say.
// billOf reads the project and month a bill route names (:project, :month).
func (h *Handler) billOf(c echo.Context) (models.Project, string, error) {
	p, err := h.billProject(c)
	if err != nil {
		return p, "", err
	}
	month, err := billMonth(c.Param("month"))
	return p, month, err
}

// billMonth checks a month: not YYYY-MM is 400, a year outside the billing years 422.
func billMonth(m string) (string, error) {
	if _, err := time.Parse("2006-01", m); err != nil || len(m) != 7 {
		return "", handlers.BadRequest("month", "month must be a month as YYYY-MM, e.g. 2026-02")
	}
	if _, err := billing.ParseMonth(m); err != nil {
		return "", echo.NewHTTPError(http.StatusUnprocessableEntity, api.Error{Field: "month",
			Error: fmt.Sprintf("month must be of the years %d to %d", billing.MinYear, billing.MaxYear)})
	}
	return m, nil
}

// billFormat is the ?format= of a download, JSON when absent.
func billFormat(c echo.Context) (string, error) {
	switch f := c.QueryParam("format"); f {
	case "", formatJSON:
		return formatJSON, nil
	case formatCSV, formatXLSX:
		return f, nil
	}
	return "", handlers.BadRequest("format", "format must be json, csv or xlsx")
}

// billError maps billing's errors: a field error 422 naming the field, a conflict 409, a
// missing row 404.
func billError(err error) error {
	switch {
	case models.AllFieldErrors(err) != nil:
		return handlers.APIError(http.StatusUnprocessableEntity, err)
	case errors.Is(err, models.ErrConflict):
		msg := strings.TrimPrefix(strings.TrimPrefix(err.Error(), "billing: "), "models: ")
		return echo.NewHTTPError(http.StatusConflict, api.Error{Error: msg})
	case errors.Is(err, models.ErrNotFound):
		return echo.NewHTTPError(http.StatusNotFound, api.Error{Error: "not found"})
	}
	return err
}

// sendBills answers bills as a CSV or XLSX download named name plus the format's extension,
// or the JSON body makes (made only when JSON is asked). CSV is streamed to the client as it is written; ?rows=lines makes it the
// task lines only (billing.WriteLinesCSV), named …-lines.csv.
func sendBills(c echo.Context, format, name string, bills []billing.Bill, body func() any) error {
	w := c.Response()
	switch rows := c.QueryParam("rows"); {
	case rows == "lines" && format == formatCSV:
		w.Header().Set(echo.HeaderContentType, mimeCSV)
		w.Header().Set(echo.HeaderContentDisposition, attachment(name+"-lines.csv"))
		w.WriteHeader(http.StatusOK)
		return billing.WriteLinesCSV(w, bills)
	case rows != "":
		return handlers.BadRequest("rows", "rows=lines is the only choice, and only with format=csv")
	}
	switch format {
	case formatCSV:
		w.Header().Set(echo.HeaderContentType, mimeCSV)
		w.Header().Set(echo.HeaderContentDisposition, attachment(name+".csv"))
		w.WriteHeader(http.StatusOK)
		return billing.WriteCSV(w, bills)
	case formatXLSX:
		w.Header().Set(echo.HeaderContentType, mimeXLSX)
		w.Header().Set(echo.HeaderContentDisposition, attachment(name+".xlsx"))
		w.WriteHeader(http.StatusOK)
		l := handlers.Locale(c)
		names := billing.SheetNames{Summary: l.T("xlsx.sheet.summary"), Lines: l.T("xlsx.sheet.lines"),
			Idle: l.T("xlsx.sheet.idle"), Models: l.T("xlsx.sheet.models"), Stages: l.T("xlsx.sheet.stages")}
		return billing.WriteXLSX(w, bills, names)
	}
	return c.JSON(http.StatusOK, body())
}

// attachment is a Content-Disposition that saves the response as file: letters, digits and
// ".-_" are kept (Chinese names too, RFC 2231-encoded), anything else becomes "_".
func attachment(file string) string {
	clean := strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, file)
	return mime.FormatMediaType("attachment", map[string]string{"filename": clean})
}

// billFile is the download name of a project's bill of a month, without extension.
func billFile(project, month string) string { return "kashi-" + project + "-" + month }
