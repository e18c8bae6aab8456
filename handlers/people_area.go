package handlers

import (
	"context"
	"time"

	"kashi/models"
)

// People serves logins, sessions and tokens, users, the audit log, language and health.
type People struct {
	*core
	store PeopleStore
	// logins throttles failed logins (login_throttle.go).
	logins *loginThrottle
}

// PeopleStore is what People needs of models.Store.
type PeopleStore interface {
	Ping(ctx context.Context) error
	Authenticate(ctx context.Context, name, password string) (models.User, error)
	CreateSession(ctx context.Context, userID int64, lim models.SessionLimits, now time.Time) (string, error)
	SessionUser(ctx context.Context, token string, lim models.SessionLimits, now time.Time) (models.User, error)
	DeleteSession(ctx context.Context, token string) error
	TokenUser(ctx context.Context, token string, now time.Time) (models.User, models.APIToken, error)
	Memberships(ctx context.Context, userID int64) (map[int64]string, error)
	CreateUser(ctx context.Context, name, password, role string, now time.Time) (models.User, error)
	AuditLog(ctx context.Context, f models.AuditFilter) ([]models.AuditEntry, error)
	APITokens(ctx context.Context, userID int64) ([]models.APIToken, error)
	CreateAPIToken(ctx context.Context, userID int64, name, scope string, now time.Time) (string, models.APIToken, error)
	RevokeAPIToken(ctx context.Context, userID, id int64, now time.Time) error
	UnreadNotifications(ctx context.Context, userID int64) (int, error)
	Audit(ctx context.Context, at time.Time, actor, action string, projectID *int64, subject string, before, after any) error
	// The people and account pages (#15).
	Users(ctx context.Context) ([]models.User, error)
	SetUserDisabled(ctx context.Context, actor, name string, disabled bool, now time.Time) error
	ResetPassword(ctx context.Context, actor, name, password string, now time.Time) error
	ChangePassword(ctx context.Context, userID int64, current, next string, now time.Time) error
	// The approvals' count in the navigation, the audit page's filters (#15).
	PendingRequests(ctx context.Context, projectIDs []int64) (int, error)
	AuditActions(ctx context.Context, projectIDs []int64) ([]string, error)
	Projects(ctx context.Context) ([]models.Project, error)
	ProjectByName(ctx context.Context, name string) (models.Project, error)
}

// newPeople returns the area over store.
func newPeople(c *core, store PeopleStore) *People {
	return &People{core: c, store: store, logins: newLoginThrottle()}
}
