package demo

import (
	"context"
	"fmt"
	"time"

	"kashi/models"
)

// Seeder is what Seed needs of the store.
type Seeder interface {
	EnsureProject(ctx context.Context, name string, now time.Time) (models.Project, error)
	CreateUser(ctx context.Context, name, password, role string, now time.Time) (models.User, error)
	UserByName(ctx context.Context, name string) (models.User, error)
	SetMember(ctx context.Context, projectID, userID int64, role string) error
	SetQuota(ctx context.Context, actor string, q models.Quota, now time.Time) (models.Quota, error)
	CreateAPIToken(ctx context.Context, userID int64, name, scope string, now time.Time) (string, models.APIToken, error)
	SavePoolConfig(ctx context.Context, name string, cfg models.PoolConfig, by, note string, now time.Time) (models.ConfiguredPool, error)
	SetPrice(ctx context.Context, p models.Price, now time.Time) error
	SetBillingPlan(ctx context.Context, p models.BillingPlan, now time.Time) error
}

// prices are the demo's price list, fen per card-hour, for both specs, from the month before
// the past month; priceCuts change it from the past month on.
var prices = []models.Price{
	{Spec: "A100-80G", RateFen: 1500, OverflowRateFen: 2200},
	{Spec: "RTX4090-24G", RateFen: 700, OverflowRateFen: 1000},
}

// plans are the demo projects' billing modes, one of each: vision pays as it goes, nlp has a
// reserved package of 16 RTX 4090s, speech pays per task by size, recsys pays as it goes.
var plans = map[string]models.BillingPlan{
	"vision": {Mode: models.BillPayAsYouGo},
	"nlp":    {Mode: models.BillReserved, PackageSpec: "RTX4090-24G", PackageCards: 16, PackageFeeFen: 4_000_000},
	"speech": {Mode: models.BillPerTask, SizeClasses: `[{"name":"S","max_card_hours":4,"price_fen":3000},` +
		`{"name":"M","max_card_hours":32,"price_fen":20000},{"name":"L","max_card_hours":0,"price_fen":90000}]`},
	"recsys": {Mode: models.BillPayAsYouGo},
}

// Password is every demo user's password; the login page shows it in demo mode only.
const Password = "demo"

// Users are the demo's people: one per role. "lead" leads vision and nlp; "member" works in
// vision.
var Users = []struct{ Name, Role string }{
	{"admin", models.RoleAdmin}, {"lead", models.RoleUser}, {"member", models.RoleUser},
	{"finance", models.RoleFinance}, {"viewer", models.RoleViewer},
}

// Seed creates the demo's projects, quotas, people and memberships, and an API token for each
// owner of the task stream, which it returns by owner name. On a database the demo seeded
// before (--db given again) it only makes the tokens; fresh says which it was.
func Seed(ctx context.Context, s Seeder, now time.Time) (tokens map[string]string, fresh bool, err error) {
	if _, err := s.UserByName(ctx, "member"); err == nil {
		tokens, err := newTokens(ctx, s, now)
		return tokens, false, err
	}
	tokens, err = seed(ctx, s, now)
	return tokens, true, err
}

// newTokens makes an API token for each owner of the task stream, already a user.
func newTokens(ctx context.Context, s Seeder, now time.Time) (map[string]string, error) {
	tokens := make(map[string]string)
	for _, owner := range streamOwners {
		u, err := s.UserByName(ctx, owner)
		if err != nil {
			return nil, fmt.Errorf("demo: owner %s: %w", owner, err)
		}
		if tokens[owner], _, err = s.CreateAPIToken(ctx, u.ID, "demo task stream", models.ScopeWrite, now); err != nil {
			return nil, err
		}
	}
	return tokens, nil
}

// seed fills a fresh database.
func seed(ctx context.Context, s Seeder, now time.Time) (map[string]string, error) {
	projects := make(map[string]models.Project)
	for _, name := range Projects {
		p, err := s.EnsureProject(ctx, name, now)
		if err != nil {
			return nil, err
		}
		projects[name] = p
	}
	// Prices and plans hold from the month before the last, so the history's month has them.
	from := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, -2, 0).Format("2006-01")
	for _, pr := range prices {
		pr.FromMonth = from
		if err := s.SetPrice(ctx, pr, now); err != nil {
			return nil, fmt.Errorf("demo: price of %s: %w", pr.Spec, err)
		}
	}
	past := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC).AddDate(0, -1, 0).Format("2006-01")
	for _, pr := range priceCuts {
		pr.FromMonth = past
		if err := s.SetPrice(ctx, pr, now); err != nil {
			return nil, fmt.Errorf("demo: price of %s from %s: %w", pr.Spec, past, err)
		}
	}
	for name, pl := range plans {
		pl.ProjectID, pl.FromMonth = projects[name].ID, from
		if err := s.SetBillingPlan(ctx, pl, now); err != nil {
			return nil, fmt.Errorf("demo: plan of %s: %w", name, err)
		}
	}
	for _, p := range pools {
		a := p.attrs
		cfg := models.PoolConfig{Provider: "sim", Spec: p.spec, GPUsPerNode: 8,
			Flavor: p.flavor, Enabled: true, MinNodes: p.min, MaxNodes: p.max, Step: 1, AnySpec: p.anySpec,
			BootTimeoutS: 600, ScaleUpDelayS: 120, MemoryHighPct: 80, MemoryHighWindowS: 300,
			MemoryLowPct: 20, MemoryLowWindowS: 600, UnneededS: 600, CooldownUpS: 600, CooldownDownS: 600,
			MaxInFlight: 2, DrainBufferS: 1800, AdoptUnknown: true,
			IntraNodeLink: a.IntraNodeLink, IntraNodeGBytesS: a.IntraNodeGBytesS, InterNodeLink: a.InterNodeLink,
			InterNodePorts: a.InterNodePorts, InterNodePortGbps: a.InterNodePortGbps, LocalStorageMBps: a.LocalStorageMBps,
			SharedStorageMBps: a.SharedStorageMBps}
		if err := savePool(ctx, s, p.name, cfg, now); err != nil {
			return nil, fmt.Errorf("demo: pool %s: %w", p.name, err)
		}
	}
	start := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	// The quotas come after the pools, whose reach their guarantees are promised from; a
	// lead of vision may raise its limit to 32, its guarantee to 12 and its budget to 12,000.
	quotas := []models.Quota{
		{ProjectID: projects["vision"].ID, Spec: "A100-80G", MaxGPUs: 24, GuaranteedGPUs: 8, BudgetCardHours: 8000,
			ContractMaxGPUs: 32, ContractGuaranteedGPUs: 12, ContractBudgetCardHours: 12000},
		{ProjectID: projects["nlp"].ID, Spec: "RTX4090-24G", MaxGPUs: 24, BudgetCardHours: 5000},
		{ProjectID: projects["speech"].ID, Spec: "", MaxGPUs: 16, BudgetCardHours: 600, OverflowAllowed: true, OverflowRateFen: 1800},
	}
	for _, q := range quotas {
		q.StartsAt, q.EndsAt = start, start.AddDate(0, 3, 0)
		if _, err := s.SetQuota(ctx, "demo", q, now); err != nil {
			return nil, err
		}
	}
	users := make(map[string]models.User)
	for _, u := range Users {
		row, err := s.CreateUser(ctx, u.Name, Password, u.Role, now)
		if err != nil {
			return nil, err
		}
		users[u.Name] = row
	}
	members := []struct{ user, project, role string }{
		{"lead", "vision", models.ProjectRoleLead}, {"lead", "nlp", models.ProjectRoleLead},
		{"member", "vision", models.ProjectRoleMember},
	}
	tokens := make(map[string]string)
	for i, owner := range owners {
		u, err := s.CreateUser(ctx, owner, Password, models.RoleUser, now)
		if err != nil {
			return nil, err
		}
		users[owner] = u
		// Each owner works in two projects, so every project has several people.
		for _, k := range []int{i, i + 1} {
			members = append(members, struct{ user, project, role string }{owner, Projects[k%len(Projects)], models.ProjectRoleMember})
		}
		tok, _, err := s.CreateAPIToken(ctx, u.ID, "demo task stream", models.ScopeWrite, now)
		if err != nil {
			return nil, err
		}
		tokens[owner] = tok
	}
	for _, m := range members {
		if err := s.SetMember(ctx, projects[m.project].ID, users[m.user].ID, m.role); err != nil {
			return nil, fmt.Errorf("demo: member %s of %s: %w", m.user, m.project, err)
		}
	}
	// The demo logins run tasks too, so that they get idle notices to answer.
	for login := range loginProjects {
		tok, _, err := s.CreateAPIToken(ctx, users[login].ID, "demo task stream", models.ScopeWrite, now)
		if err != nil {
			return nil, err
		}
		tokens[login] = tok
	}
	return tokens, nil
}

// loginProjects are the projects the demo logins that run tasks submit to (their own, see
// Users).
var loginProjects = map[string][]string{"member": {"vision"}, "lead": {"vision", "nlp"}}

// streamOwners are everyone who submits the demo's tasks: the stream's owners and the
// logins of loginProjects.
var streamOwners = append(append([]string{}, owners...), "member", "lead")

// ownerProjects lists the projects an owner of the task stream works in (see Seed).
func ownerProjects(owner string) []string {
	if ps, ok := loginProjects[owner]; ok {
		return ps
	}
	for i, o := range owners {
		if o == owner {
			return []string{Projects[i%len(Projects)], Projects[(i+1)%len(Projects)]}
		}
	}
	return nil
}
