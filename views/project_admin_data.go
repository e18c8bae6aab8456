package views

// ProjectAdmin is what a project's leads and the admins edit on its card: tags, members and
// their roles, and (admins) its quotas and whether it is archived.
type ProjectAdmin struct {
	Tags    string // comma-separated
	Members []MemberView
	// Users are the names a member may be added by (every active user).
	Users []string
	// Quotas are the project's quotas as the admin's forms show them, then a blank one for a
	// new spec; nil for leads, who do not set quotas.
	Quotas []QuotaForm
	// Specs are the specs the fleet has, offered for a new quota.
	Specs []string
	// CanArchive is true for admins.
	CanArchive bool
	Archived   bool
	// Form says which form of the card was refused ("tags", "members", "quota:<spec>"),
	// Problems what it was refused for.
	Form     string
	Problems Problems
}

// QuotaFields are the quota form's fields in its order, as the store names them.
var QuotaFields = []string{"spec", "max_gpus", "guaranteed_gpus", "max_service_gpus", "budget_card_hours", "starts_at", "ends_at",
	"overflow_rate", "overflow_rate_fen", "remind_end_days", "remind_budget_pcts"}

// MemberView is one member of a project.
type MemberView struct {
	Name, Role string
}

// QuotaForm is a quota's contract as the admin types it: GPUs at once, the guaranteed share,
// the cap on the services' cards, the monthly budget, the dates (in the billing zone), overflow and its rate in yuan, and the
// quota's own reminders (empty for the server's).
type QuotaForm struct {
	// New is true for the blank form that adds a quota of another spec.
	New                                      bool
	Spec                                     string
	MaxGPUs, GuaranteedGPUs, BudgetCardHours string
	MaxServiceGPUs                           string
	StartsAt, EndsAt                         string // 2006-01-02
	OverflowAllowed                          bool
	OverflowRate                             string // yuan per card-hour, empty for the price list's
	RemindEndDays, RemindBudgetPcts          string
	// The contract: how far a lead approves the limit, the guarantee and the budget; empty
	// for the quota's own value.
	ContractMaxGPUs, ContractGuaranteedGPUs, ContractBudgetCardHours string
}

// AdminProblems are the card's problems when they belong to form; none otherwise.
func (a *ProjectAdmin) AdminProblems(form string) Problems {
	if a.Form != form {
		return nil
	}
	return a.Problems
}
