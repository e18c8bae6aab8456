package handlers

import (
	"fmt"

	"github.com/labstack/echo/v4"

	"kashi/models"
)

// Access is what a route asks of the caller. Routes declare one each (web/routes.go); handlers
// then check the project of the resource itself with Principal.CanSee and CanRun.
type Access int

// Access levels, from open to narrow.
const (
	// Public: no login (health, metrics, static files, login page, agent API with its own tokens).
	Public Access = iota
	// Viewer: anyone logged in — board and queue.
	Viewer
	// Member: someone who belongs to a project (or an admin) — tasks, quotas, requests.
	Member
	// Billing: finance staff, an admin, or someone who belongs to a project — bills and
	// reports; handlers then show a member only their projects (Principal.SeesBills).
	Billing
	// Lead: a lead of some project (or an admin) — approvals and members.
	Lead
	// Finance: finance staff (or an admin) — all bills.
	Finance
	// Admin: the platform admin.
	Admin
)

// Principal is who makes a request: a logged-in user with their project roles.
type Principal struct {
	User models.User
	// Projects maps project id to the user's role in it (lead or member).
	Projects map[int64]string
	// ReadOnly is true for read-scoped API tokens.
	ReadOnly bool
	// TokenID is the API token the request came with; 0 for a session.
	TokenID int64
	// Unread counts the user's unread notifications, for the navigation; read for sessions
	// (pages) only.
	Unread int
	// Pending counts the quota requests of the projects the user leads (all for admins)
	// waiting for a decision, for the navigation; read for sessions only.
	Pending int
}

// IdempotencyScope names the principal for idempotency keys: the user, or the user's token,
// so one caller's key never finds another caller's task.
func (p *Principal) IdempotencyScope() string {
	if p.TokenID != 0 {
		return fmt.Sprintf("user:%d/token:%d", p.User.ID, p.TokenID)
	}
	return fmt.Sprintf("user:%d", p.User.ID)
}

// Admin reports whether the principal is an admin.
func (p *Principal) Admin() bool { return p != nil && p.User.Role == models.RoleAdmin }

// Allows reports whether the principal meets a route's access level.
func (p *Principal) Allows(a Access) bool {
	if a == Public {
		return true
	}
	if p == nil {
		return false
	}
	switch {
	case p.Admin():
		return true
	case a == Viewer:
		return true
	case a == Finance:
		return p.User.Role == models.RoleFinance
	case a == Member:
		return p.User.Role == models.RoleUser && len(p.Projects) > 0
	case a == Billing:
		return p.User.Role == models.RoleFinance || (p.User.Role == models.RoleUser && len(p.Projects) > 0)
	case a == Lead:
		return p.LeadsAny()
	}
	return false
}

// LeadsAny reports whether the principal leads at least one project.
func (p *Principal) LeadsAny() bool {
	for _, r := range p.Projects {
		if r == models.ProjectRoleLead {
			return true
		}
	}
	return false
}

// CanSee reports whether the principal may read a project's tasks, quotas and requests.
func (p *Principal) CanSee(projectID int64) bool {
	return p.Admin() || p.Projects[projectID] != ""
}

// CanRun reports whether the principal may submit, cancel and mark tasks of a project.
func (p *Principal) CanRun(projectID int64) bool {
	return !p.ReadOnly && (p.Admin() || p.Projects[projectID] != "")
}

// Leads reports whether the principal may decide a project's requests and edit its members.
func (p *Principal) Leads(projectID int64) bool {
	return !p.ReadOnly && (p.Admin() || p.Projects[projectID] == models.ProjectRoleLead)
}

// SeesBills reports whether the principal may read a project's bills.
func (p *Principal) SeesBills(projectID int64) bool {
	return p.Admin() || p.User.Role == models.RoleFinance || p.Projects[projectID] != ""
}

// SeesAllBills reports whether the principal may read every project's bills: finance and
// admins.
func (p *Principal) SeesAllBills() bool { return p.Admin() || p.User.Role == models.RoleFinance }

const principalKey = "kashi.principal"

// SetPrincipal stores who makes the request, for Who.
func SetPrincipal(c echo.Context, p *Principal) { c.Set(principalKey, p) }

// Who returns who makes the request; nil when nobody is logged in.
func Who(c echo.Context) *Principal {
	p, _ := c.Get(principalKey).(*Principal)
	return p
}

// VisibleProjects returns the project ids whose tasks the caller sees; nil means all.
func VisibleProjects(p *Principal) []int64 {
	if p.Admin() {
		return nil
	}
	ids := make([]int64, 0, len(p.Projects))
	for id := range p.Projects {
		ids = append(ids, id)
	}
	return ids
}
