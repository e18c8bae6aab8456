// Package people serves logins, sessions and API tokens, users, the audit log, the language
// switch and the health check.
//
// Each action is one file (parse, call, render); the area reads the store through its own
// Store interface and shares only package handlers with the other areas.
package people

import (
	"context"
	"time"

	"kashi/handlers"
	"kashi/models"
)

// Handler serves logins, sessions and tokens, users, the audit log, language and health.
type Handler struct {
	*handlers.Core
	store Store
	// logins throttles failed logins (login_throttle.go), loginRate every sign-in request
	// of an address (login_rate.go).
	logins    *loginThrottle
	loginRate *loginRate
}

// Store is what People needs of models.Store.
type Store interface {
	Ping(ctx context.Context) error
	Authenticate(ctx context.Context, name, password string) (models.User, error)
	CreateSession(ctx context.Context, userID int64, lim models.SessionLimits, now time.Time) (string, error)
	SessionUser(ctx context.Context, token string, lim models.SessionLimits, now time.Time) (models.User, error)
	DeleteSession(ctx context.Context, token string) error
	TokenUser(ctx context.Context, token string, now time.Time) (models.User, models.APIToken, error)
	CallerRoles(ctx context.Context, userID int64) (map[int64]string, error)
	CreateUser(ctx context.Context, name, password, role string, now time.Time) (models.User, error)
	AuditLog(ctx context.Context, f models.AuditFilter) ([]models.AuditEntry, error)
	APITokens(ctx context.Context, userID int64) ([]models.APIToken, error)
	CreateAPIToken(ctx context.Context, userID int64, name, scope string, now time.Time) (string, models.APIToken, error)
	RevokeAPIToken(ctx context.Context, userID, id int64, now time.Time) error
	UnreadNotifications(ctx context.Context, userID int64) (int, error)
	Audit(ctx context.Context, at time.Time, actor, action string, projectID *int64, subject string, before, after any) error
	// The people and account pages.
	Users(ctx context.Context) ([]models.User, error)
	SetUserDisabled(ctx context.Context, actor, name string, disabled bool, now time.Time) error
	ResetPassword(ctx context.Context, actor, name, password string, now time.Time) error
	ChangePassword(ctx context.Context, userID int64, current, next, keep string, now time.Time) error
	SetChatIDs(ctx context.Context, actor, name string, ids models.ChatIDs, now time.Time) error
	SetUnixAccount(ctx context.Context, actor, name, account string, now time.Time) error
	// The approvals' count in the navigation, the audit page's filters.
	PendingRequests(ctx context.Context, projectIDs []int64) (int, error)
	AuditActions(ctx context.Context, projectIDs []int64) ([]string, error)
	Projects(ctx context.Context) ([]models.Project, error)
	ProjectByName(ctx context.Context, name string) (models.Project, error)
	// Sign-in through the organisation's directory and its mapping rules (#38).
	OpenSession(ctx context.Context, u models.User, method string, lim models.SessionLimits, now time.Time) (string, error)
	SessionMethod(ctx context.Context, token string) (string, error)
	SaveSSOState(ctx context.Context, method, state, nonce, verifier, next string, now time.Time) error
	TakeSSOState(ctx context.Context, method, state string, now time.Time) (models.SSOState, error)
	SignInExternal(ctx context.Context, id models.ExternalIdentity, extra []models.SSORule, lim models.SessionLimits, now time.Time) (models.User, string, error)
	SSORules(ctx context.Context) ([]models.SSORule, error)
	CreateSSORule(ctx context.Context, actor string, r models.SSORule, now time.Time) (models.SSORule, error)
	DeleteSSORule(ctx context.Context, actor string, id int64, now time.Time) error
}

// New returns the area over store.
func New(c *handlers.Core, store Store) *Handler {
	return &Handler{Core: c, store: store, logins: newLoginThrottle(), loginRate: newLoginRate()}
}
