package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"kashi/handlers"
	"kashi/static"
)

// Route is one entry of the URL surface: its method, path, the access it asks of the caller
// (checked on the server for every request; handlers check the resource's project on top),
// and its handler.
type Route struct {
	Method  string
	Path    string
	Access  handlers.Access
	Handler echo.HandlerFunc
}

// Routes is the whole URL surface of Kashi, grouped by area; the table is the access policy.
// A test walks it for every role.
func Routes(h *handlers.Handler) []Route {
	const (
		GET  = http.MethodGet
		POST = http.MethodPost
	)
	return []Route{
		// Operations.
		{GET, "/healthz", handlers.Public, h.Healthz},
		{GET, "/metrics", handlers.Public, echo.WrapHandler(promhttp.Handler())},
		{GET, "/static/*", handlers.Public, echo.WrapHandler(http.StripPrefix("/static/", staticFiles()))},

		// Login and language.
		{GET, "/login", handlers.Public, h.LoginForm},
		{POST, "/login", handlers.Public, h.Login},
		{POST, "/logout", handlers.Public, h.Logout},
		{GET, "/lang", handlers.Public, h.LangSet},

		// Pages.
		{GET, "/", handlers.Viewer, h.Board},
		{GET, "/queue", handlers.Viewer, h.QueuePage},
		{POST, "/queue/tasks", handlers.Member, h.TaskFormSubmit},
		{POST, "/queue/tasks/validate", handlers.Member, h.TaskFormValidate},
		{GET, "/projects", handlers.Viewer, h.ProjectsPage},
		{POST, "/projects/requests", handlers.Member, h.RequestFormSubmit},
		{GET, "/approvals", handlers.Lead, h.ApprovalsPage},
		{POST, "/approvals/:id", handlers.Lead, h.ApprovalDecide},
		{GET, "/audit", handlers.Lead, h.AuditPage},
		{GET, "/tokens", handlers.Viewer, h.TokensPage},
		{POST, "/tokens", handlers.Viewer, h.TokenFormCreate},
		{POST, "/tokens/:id/revoke", handlers.Viewer, h.TokenFormRevoke},
		{GET, "/pools", handlers.Viewer, h.PoolsPage},
		{GET, "/pools/new", handlers.Admin, h.PoolNew},
		{GET, "/pools/:name/edit", handlers.Admin, h.PoolEdit},
		{POST, "/pools/:name", handlers.Admin, h.PoolSave},
		{POST, "/pools/:name/rollback/:version", handlers.Admin, h.PoolRollback},
		{GET, "/alerts", handlers.Viewer, h.AlertsPage},
		{GET, "/notifications", handlers.Viewer, h.NotificationsPage},
		{POST, "/notifications/read", handlers.Viewer, h.NotificationsReadForm},
		{POST, "/notifications/tasks/:id/keep", handlers.Member, h.TaskKeepForm},
		{POST, "/notifications/tasks/:id/release", handlers.Member, h.TaskReleaseForm},
		{GET, "/bills", handlers.Billing, h.BillsPage},
		{GET, "/bills/:project/:month", handlers.Billing, h.BillPage},
		{POST, "/bills/:project/:month/issue", handlers.Finance, h.BillIssueForm},
		{GET, "/reports", handlers.Billing, h.ReportsPage},
		{GET, "/reports.csv", handlers.Billing, h.ReportsCSV},

		// JSON API.
		{GET, "/api/v1/gpus", handlers.Viewer, h.GPUsList},
		{GET, "/api/v1/queue", handlers.Viewer, h.QueueList},
		{GET, "/api/v1/tasks", handlers.Member, h.TaskList},
		{POST, "/api/v1/tasks", handlers.Member, h.TaskCreate},
		{GET, "/api/v1/tasks/:id", handlers.Member, h.TaskShow},
		{GET, "/api/v1/tasks/:id/log", handlers.Member, h.TaskLog},
		{POST, "/api/v1/tasks/:id/cancel", handlers.Member, h.TaskCancel},
		{POST, "/api/v1/tasks/:id/ready", handlers.Member, h.TaskReady},
		{POST, "/api/v1/tasks/:id/keep", handlers.Member, h.TaskKeep},
		{POST, "/api/v1/tasks/:id/release", handlers.Member, h.TaskRelease},
		{GET, "/api/v1/projects", handlers.Viewer, h.ProjectList},
		{POST, "/api/v1/projects/:id/quotas", handlers.Admin, h.QuotaSet},
		{POST, "/api/v1/projects/:id/members", handlers.Lead, h.MemberSet},
		{POST, "/api/v1/projects/:id/tags", handlers.Lead, h.ProjectTags},
		{GET, "/api/v1/requests", handlers.Member, h.RequestList},
		{POST, "/api/v1/requests", handlers.Member, h.RequestCreate},
		{POST, "/api/v1/requests/:id/approve", handlers.Lead, h.RequestApprove},
		{POST, "/api/v1/requests/:id/reject", handlers.Lead, h.RequestReject},
		{GET, "/api/v1/audit", handlers.Lead, h.AuditList},
		{GET, "/api/v1/notifications", handlers.Viewer, h.NotificationList},
		{POST, "/api/v1/notifications/read", handlers.Viewer, h.NotificationsRead},
		{GET, "/api/v1/tokens", handlers.Viewer, h.TokenList},
		{POST, "/api/v1/tokens", handlers.Viewer, h.TokenCreate},
		{POST, "/api/v1/tokens/:id/revoke", handlers.Viewer, h.TokenRevoke},
		{POST, "/api/v1/users", handlers.Admin, h.UserCreate},
		{GET, "/api/v1/pools", handlers.Viewer, h.PoolsList},
		{POST, "/api/v1/pools/:name", handlers.Admin, h.PoolSet},
		{GET, "/api/v1/alerts", handlers.Viewer, h.AlertList},
		{GET, "/api/v1/bills/:month", handlers.Finance, h.BillsMonth},
		{GET, "/api/v1/bills/:project/:month", handlers.Billing, h.BillShow},
		{POST, "/api/v1/bills/:project/:month/issue", handlers.Finance, h.BillIssue},
		{POST, "/api/v1/bills/:project/:month/adjustments", handlers.Finance, h.AdjustmentCreate},
		{POST, "/api/v1/prices", handlers.Admin, h.PriceSet},
		{POST, "/api/v1/projects/:id/plan", handlers.Admin, h.PlanSet},

		// Agent API: the join token registers, the node's own token does the rest.
		{POST, "/api/v1/agent/register", handlers.Public, h.AgentRegister},
		{POST, "/api/v1/agent/samples", handlers.Public, h.NodeAuth(h.AgentSamples)},
		{GET, "/api/v1/agent/assignments", handlers.Public, h.NodeAuth(h.AgentAssignments)},
		{POST, "/api/v1/agent/tasks/:id/status", handlers.Public, h.NodeAuth(h.AgentTaskStatus)},
	}
}

// routes registers every route with its access check.
func routes(e *echo.Echo, h *handlers.Handler) {
	for _, r := range Routes(h) {
		e.Add(r.Method, r.Path, r.Handler, require(r.Access))
	}
}

// staticFiles serves the embedded assets; their URLs carry a content hash, so they may be
// cached for a year.
func staticFiles() http.Handler {
	fs := http.FileServerFS(static.FS)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("v") != "" {
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		}
		fs.ServeHTTP(w, r)
	})
}
