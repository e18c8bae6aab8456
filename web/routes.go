package web

import (
	"net/http"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"kashi/api"
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
func Routes(h *Areas) []Route {
	const (
		GET  = http.MethodGet
		POST = http.MethodPost
	)
	metricsPage := h.Metrics
	if metricsPage == nil {
		metricsPage = promhttp.Handler()
	}
	return []Route{
		// Operations.
		{GET, "/healthz", handlers.Public, h.People.Healthz},
		{GET, "/metrics", handlers.Public, echo.WrapHandler(metricsPage)},
		{GET, "/static/*", handlers.Public, echo.WrapHandler(http.StripPrefix("/static/", staticFiles()))},

		// Login and language.
		{GET, "/login", handlers.Public, h.People.LoginForm},
		{POST, "/login", handlers.Public, h.People.Login},
		{POST, "/logout", handlers.Public, h.People.Logout},
		{GET, "/lang", handlers.Public, h.People.LangSet},

		// Pages.
		{GET, "/", handlers.Viewer, h.Board.Board},
		{GET, "/gpus/:id", handlers.Viewer, h.Board.GPUPage},
		{GET, "/nodes/:id", handlers.Viewer, h.Board.NodePage},
		{GET, "/queue", handlers.Viewer, h.Tasks.QueuePage},
		{POST, "/queue/tasks", handlers.Member, h.Tasks.TaskFormSubmit},
		{POST, "/queue/tasks/validate", handlers.Member, h.Tasks.TaskFormValidate},
		{GET, "/tasks", handlers.Viewer, h.Tasks.TasksPage},
		{GET, "/tasks/:id", handlers.Viewer, h.Tasks.TaskPage},
		{GET, "/tasks/:id/log", handlers.Member, h.Tasks.TaskLogPart},
		{POST, "/tasks/:id/cancel", handlers.Member, h.Tasks.TaskCancelForm},
		{POST, "/tasks/:id/ready", handlers.Member, h.Tasks.TaskReadyForm},
		{GET, "/trials", handlers.Viewer, h.Tasks.TrialsPage},
		{GET, "/trials/new", handlers.Member, h.Tasks.TrialForm},
		{POST, "/trials", handlers.Member, h.Tasks.TrialFormSubmit},
		{GET, "/trials/:id", handlers.Viewer, h.Tasks.TrialPage},
		{POST, "/trials/:id/full", handlers.Member, h.Tasks.TrialFullForm},
		{GET, "/projects", handlers.Viewer, h.Projects.ProjectsPage},
		{GET, "/projects/:id/quota-changes/:change", handlers.Member, h.Projects.QuotaChange},
		{GET, "/projects/:id/reclaim-changes/:change", handlers.Member, h.Projects.ReclaimChange},
		{POST, "/projects/requests", handlers.Member, h.Projects.RequestFormSubmit},
		{POST, "/projects/:id/reclaim", handlers.Lead, h.Projects.ReclaimFormSubmit},
		{GET, "/projects/:id/templates", handlers.Member, h.Tasks.TemplatesPage},
		{POST, "/projects/:id/templates", handlers.Lead, h.Tasks.TemplateFormCreate},
		{GET, "/templates/:id", handlers.Member, h.Tasks.TemplatePage},
		{POST, "/templates/:id", handlers.Lead, h.Tasks.TemplateFormUpdate},
		{POST, "/templates/:id/rollback", handlers.Lead, h.Tasks.TemplateFormRollback},
		{POST, "/templates/:id/schedules", handlers.Lead, h.Tasks.ScheduleFormCreate},
		{POST, "/templates/:id/schedules/preview", handlers.Lead, h.Tasks.SchedulePreview},
		{POST, "/schedules/:id/suspend", handlers.Lead, h.Tasks.ScheduleFormSuspend},
		{POST, "/schedules/:id/resume", handlers.Lead, h.Tasks.ScheduleFormResume},
		{GET, "/approvals", handlers.Lead, h.Projects.ApprovalsPage},
		{POST, "/approvals/:id", handlers.Lead, h.Projects.ApprovalDecide},
		{GET, "/audit", handlers.Lead, h.People.AuditPage},
		{GET, "/audit.csv", handlers.Lead, h.People.AuditCSV},
		{GET, "/tokens", handlers.Viewer, h.People.TokensPage},
		{POST, "/tokens", handlers.Viewer, h.People.TokenFormCreate},
		{POST, "/tokens/:id/revoke", handlers.Viewer, h.People.TokenFormRevoke},
		{GET, "/pools", handlers.Viewer, h.Pools.PoolsPage},
		{GET, "/pools/new", handlers.Admin, h.Pools.PoolNew},
		{GET, "/pools/:name/edit", handlers.Admin, h.Pools.PoolEdit},
		{POST, "/pools/:name", handlers.Admin, h.Pools.PoolSave},
		{POST, "/pools/:name/rollback/:version", handlers.Admin, h.Pools.PoolRollback},
		{POST, "/pools/:name/resume", handlers.Admin, h.Pools.PoolResume},
		{GET, "/archive", handlers.Admin, h.Pools.ArchivePage},
		{GET, "/join-tokens", handlers.Admin, h.Pools.JoinTokensPage},
		{POST, "/join-tokens", handlers.Admin, h.Pools.JoinTokenFormCreate},
		{POST, "/join-tokens/shared/revoke", handlers.Admin, h.Pools.JoinTokenFormRevokeShared},
		{POST, "/join-tokens/:id/revoke", handlers.Admin, h.Pools.JoinTokenFormRevoke},
		{GET, "/calibrate", handlers.Admin, h.Pools.CalibratePage},
		{POST, "/calibrate", handlers.Admin, h.Pools.CalibrateStart},
		{GET, "/calibrate/runs/:id", handlers.Admin, h.Pools.CalibrateRun},
		{POST, "/calibrate/propose", handlers.Admin, h.Pools.CalibratePropose},
		{GET, "/calibrate/history.csv", handlers.Admin, h.Pools.CalibrateHistory},
		{GET, "/alerts", handlers.Viewer, h.Pools.AlertsPage},
		{GET, "/models", handlers.Viewer, h.Services.ModelsPage},
		{POST, "/alerts/ack", handlers.Lead, h.Pools.AlertAck},
		{GET, "/notifications", handlers.Viewer, h.Tasks.NotificationsPage},
		{POST, "/notifications/read", handlers.Viewer, h.Tasks.NotificationsReadForm},
		{POST, "/notifications/tasks/:id/keep", handlers.Member, h.Tasks.TaskKeepForm},
		{POST, "/notifications/tasks/:id/release", handlers.Member, h.Tasks.TaskReleaseForm},
		{GET, "/bills", handlers.Billing, h.Bills.BillsPage},
		{GET, "/bills/:project/:month", handlers.Billing, h.Bills.BillPage},
		{POST, "/bills/:project/:month/issue", handlers.Finance, h.Bills.BillIssueForm},
		{POST, "/bills/:month/issue", handlers.Finance, h.Bills.BillsIssueForm},
		{GET, "/reports", handlers.Billing, h.Bills.ReportsPage},
		{GET, "/reports.csv", handlers.Billing, h.Bills.ReportsCSV},
		{GET, "/reports.xlsx", handlers.Billing, h.Bills.ReportsXLSX},

		// Admin pages: prices and plans, adjustments, projects and people.
		{GET, "/prices", handlers.Finance, h.Bills.PricesPage},
		{POST, "/prices", handlers.Admin, h.Bills.PriceFormSubmit},
		{POST, "/prices/plans", handlers.Admin, h.Bills.PlanFormSubmit},
		{GET, "/prices/changes/:id", handlers.Finance, h.Bills.PriceChange},
		{POST, "/bills/:project/:month/adjustments", handlers.Finance, h.Bills.AdjustmentFormSubmit},
		{GET, "/people", handlers.Admin, h.People.UsersPage},
		{POST, "/people", handlers.Admin, h.People.UserFormCreate},
		{POST, "/people/:name/state", handlers.Admin, h.People.UserFormState},
		{POST, "/people/:name/password", handlers.Admin, h.People.UserFormReset},
		{POST, "/people/:name/unix-account", handlers.Admin, h.People.UserFormUnixAccount},
		{GET, "/account", handlers.Viewer, h.People.AccountPage},
		{POST, "/account/password", handlers.Viewer, sessionOnly(h.People.PasswordChange)},
		{POST, "/account/chat", handlers.Viewer, sessionOnly(h.People.ChatIDsChange)},
		{POST, "/projects", handlers.Admin, h.Projects.ProjectFormCreate},
		{POST, "/projects/:id/archive", handlers.Admin, h.Projects.ProjectFormArchive},
		{POST, "/projects/:id/tags", handlers.Lead, h.Projects.ProjectFormTags},
		{POST, "/projects/:id/members", handlers.Lead, h.Projects.MemberFormSet},
		{POST, "/projects/:id/quotas", handlers.Admin, h.Projects.QuotaFormSet},

		// JSON API.
		{GET, api.PathOpenAPI, handlers.Public, openAPI},
		{GET, "/api/v1/me", handlers.Viewer, h.People.Me},
		{GET, "/api/v1/gpus", handlers.Viewer, h.Board.GPUsList},
		{GET, "/api/v1/queue", handlers.Viewer, h.Tasks.QueueList},
		{GET, "/api/v1/tasks", handlers.Member, h.Tasks.TaskList},
		{POST, "/api/v1/tasks", handlers.Member, h.Tasks.TaskCreate},
		{GET, "/api/v1/tasks/:id", handlers.Member, h.Tasks.TaskShow},
		{GET, "/api/v1/tasks/:id/log", handlers.Member, h.Tasks.TaskLog},
		{POST, "/api/v1/tasks/:id/cancel", handlers.Member, h.Tasks.TaskCancel},
		{POST, "/api/v1/tasks/:id/ready", handlers.Member, h.Tasks.TaskReady},
		{POST, "/api/v1/tasks/:id/keep", handlers.Member, h.Tasks.TaskKeep},
		{POST, "/api/v1/tasks/:id/release", handlers.Member, h.Tasks.TaskRelease},
		{POST, "/api/v1/trials", handlers.Member, h.Tasks.TrialCreate},
		{GET, "/api/v1/trials/:id", handlers.Member, h.Tasks.TrialShow},
		{GET, "/api/v1/trials", handlers.Member, h.Tasks.TrialList},
		{POST, "/api/v1/trials/:id/full", handlers.Member, h.Tasks.TrialFull},
		{GET, "/api/v1/projects", handlers.Viewer, h.Projects.ProjectList},
		{POST, "/api/v1/projects", handlers.Admin, h.Projects.ProjectCreate},
		{POST, "/api/v1/projects/:id/archive", handlers.Admin, h.Projects.ProjectArchive},
		{POST, "/api/v1/projects/:id/quotas", handlers.Admin, h.Projects.QuotaSet},
		{POST, "/api/v1/projects/:id/members", handlers.Lead, h.Projects.MemberSet},
		{POST, "/api/v1/projects/:id/tags", handlers.Lead, h.Projects.ProjectTags},
		{POST, "/api/v1/projects/:id/reclaim", handlers.Lead, h.Projects.ReclaimSet},
		{GET, "/api/v1/projects/:id/templates", handlers.Member, h.Tasks.TemplateList},
		{POST, "/api/v1/projects/:id/templates", handlers.Lead, h.Tasks.TemplateCreate},
		{GET, "/api/v1/templates/:id", handlers.Member, h.Tasks.TemplateShow},
		{POST, "/api/v1/templates/:id", handlers.Lead, h.Tasks.TemplateUpdate},
		{POST, "/api/v1/templates/:id/rollback", handlers.Lead, h.Tasks.TemplateRollback},
		{POST, "/api/v1/templates/:id/schedules", handlers.Lead, h.Tasks.ScheduleCreate},
		{POST, "/api/v1/schedules/:id/suspend", handlers.Lead, h.Tasks.ScheduleSuspend},
		{POST, "/api/v1/schedules/:id/resume", handlers.Lead, h.Tasks.ScheduleResume},
		{GET, "/api/v1/requests", handlers.Member, h.Projects.RequestList},
		{POST, "/api/v1/requests", handlers.Member, h.Projects.RequestCreate},
		{POST, "/api/v1/requests/:id/approve", handlers.Lead, h.Projects.RequestApprove},
		{POST, "/api/v1/requests/:id/reject", handlers.Lead, h.Projects.RequestReject},
		{GET, "/api/v1/reservations", handlers.Member, h.Projects.ReservationList},
		{POST, "/api/v1/reservations/:id/cancel", handlers.Lead, h.Projects.ReservationCancel},
		{GET, "/api/v1/audit", handlers.Lead, h.People.AuditList},
		{GET, "/api/v1/notifications", handlers.Viewer, h.Tasks.NotificationList},
		{POST, "/api/v1/notifications/read", handlers.Viewer, h.Tasks.NotificationsRead},
		{GET, "/api/v1/tokens", handlers.Viewer, h.People.TokenList},
		{POST, "/api/v1/tokens", handlers.Viewer, h.People.TokenCreate},
		{POST, "/api/v1/tokens/:id/revoke", handlers.Viewer, h.People.TokenRevoke},
		{POST, "/api/v1/users", handlers.Admin, h.People.UserCreate},
		{POST, "/api/v1/users/:name/unix-account", handlers.Admin, h.People.UserUnixAccountSet},
		{POST, "/api/v1/join-tokens", handlers.Admin, h.Agent.JoinTokenCreate},
		{POST, "/api/v1/join-tokens/shared/revoke", handlers.Admin, h.Agent.JoinTokenRevokeShared},
		{GET, "/api/v1/pools", handlers.Viewer, h.Pools.PoolsList},
		{GET, "/api/v1/services", handlers.Viewer, h.Services.ServicesList},
		{POST, "/api/v1/pools/:name", handlers.Admin, h.Pools.PoolSet},
		{POST, "/api/v1/pools/:name/resume", handlers.Admin, h.Pools.PoolResumeAPI},
		{GET, "/api/v1/alerts", handlers.Viewer, h.Pools.AlertList},
		{GET, "/api/v1/bills/:month", handlers.Finance, h.Bills.BillsMonth},
		{GET, "/api/v1/bills/:project/:month", handlers.Billing, h.Bills.BillShow},
		{POST, "/api/v1/bills/:month/issue", handlers.Finance, h.Bills.BillsIssue},
		{POST, "/api/v1/bills/:project/:month/issue", handlers.Finance, h.Bills.BillIssue},
		{POST, "/api/v1/bills/:project/:month/adjustments", handlers.Finance, h.Bills.AdjustmentCreate},
		{POST, "/api/v1/prices", handlers.Admin, h.Bills.PriceSet},
		{GET, "/api/v1/billing/settings", handlers.Billing, h.Bills.BillingSettings},
		{POST, "/api/v1/billing/settings", handlers.Admin, h.Bills.BillingSettingsSet},
		{POST, "/api/v1/projects/:id/plan", handlers.Admin, h.Bills.PlanSet},

		// Agent API: the join token registers, the node's own token does the rest.
		{POST, "/api/v1/agent/register", handlers.Public, h.Agent.AgentRegister},
		{POST, "/api/v1/agent/samples", handlers.Public, h.Agent.NodeAuth(h.Agent.AgentSamples)},
		{GET, "/api/v1/agent/assignments", handlers.Public, h.Agent.NodeAuth(h.Agent.AgentAssignments)},
		{POST, "/api/v1/agent/tasks/:id/status", handlers.Public, h.Agent.NodeAuth(h.Agent.AgentTaskStatus)},

		// Pipelines by stage (#33): pages, then the JSON API.
		{GET, "/pipelines", handlers.Viewer, h.Tasks.PipelinesPage},
		{POST, "/pipelines", handlers.Member, h.Tasks.PipelineFormCreate},
		{GET, "/pipelines/:id", handlers.Viewer, h.Tasks.PipelinePage},
		{POST, "/pipelines/:id/rerun", handlers.Member, h.Tasks.PipelineRerunForm},
		{POST, "/pipelines/:id/cancel", handlers.Member, h.Tasks.PipelineCancelForm},
		{POST, "/templates/:id/pipeline", handlers.Member, h.Tasks.TemplateFormPipeline},
		{GET, "/api/v1/pipelines", handlers.Member, h.Tasks.PipelineList},
		{POST, "/api/v1/pipelines", handlers.Member, h.Tasks.PipelineCreate},
		{GET, "/api/v1/pipelines/:id", handlers.Member, h.Tasks.PipelineShow},
		{POST, "/api/v1/pipelines/:id/rerun", handlers.Member, h.Tasks.PipelineRerun},
		{POST, "/api/v1/pipelines/:id/cancel", handlers.Member, h.Tasks.PipelineCancel},

		// Sign-in through the organisation's directory (#38): the OpenID provider's code flow,
		// then the admins' mapping of directory groups to roles.
		{GET, "/login/oidc", handlers.Public, h.People.OIDCBegin},
		{GET, "/login/oidc/callback", handlers.Public, h.People.OIDCCallback},
		{GET, "/login/chat/:platform", handlers.Public, h.People.ChatBegin},
		{GET, "/login/chat/:platform/callback", handlers.Public, h.People.ChatCallback},
		{GET, "/people/sso", handlers.Admin, h.People.SSORulesPage},
		{POST, "/people/sso", handlers.Admin, h.People.SSORuleFormCreate},
		{POST, "/people/sso/:id/delete", handlers.Admin, h.People.SSORuleFormDelete},
		// The pilot review of a pool (#34).
		{GET, "/pools/:name/review", handlers.Lead, h.Pools.PoolReview},
		{GET, "/pools/:name/review.csv", handlers.Lead, h.Pools.PoolReviewCSV},
		{GET, "/pools/:name/review.xlsx", handlers.Lead, h.Pools.PoolReviewXLSX},
		{POST, "/pools/:name/review/send", handlers.Lead, h.Pools.PoolReviewSend},
		{GET, "/pools/:name/changes/:version", handlers.Lead, h.Pools.PoolChange},
	}
}

// routes registers every route with its access check.
func routes(e *echo.Echo, h *Areas) {
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
