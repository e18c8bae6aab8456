// Package projects serves projects, their members and tags, quotas, quota requests and approvals,
// reclaim overrides and reservations.
//
// Each action is one file (parse, call, render); the area reads the store through its own
// Store interface and shares only package handlers with the other areas.
package projects

import (
	"context"
	"time"

	"kashi/handlers"
	"kashi/models"
	"kashi/pilot"
)

// Handler serves projects, their members and tags, quotas, quota requests and approvals.
type Handler struct {
	*handlers.Core
	store Store
	// changes measures quota changes in the background (quota_change.go).
	changes *pilot.ChangeCache
}

// Store is what Projects needs of models.Store.
type Store interface {
	Projects(ctx context.Context) ([]models.Project, error)
	Memberships(ctx context.Context, userID int64) (map[int64]string, error)
	ProjectByName(ctx context.Context, name string) (models.Project, error)
	UserByName(ctx context.Context, name string) (models.User, error)
	SetProjectTags(ctx context.Context, actor string, projectID int64, tags []string, now time.Time) error
	SetReclaimOverride(ctx context.Context, actor string, projectID int64, o models.ReclaimOverride, now time.Time) error
	SetMember(ctx context.Context, projectID, userID int64, role string) error
	Quotas(ctx context.Context, projectID int64) ([]models.Quota, error)
	SetQuota(ctx context.Context, actor string, q models.Quota, now time.Time) (models.Quota, error)
	UsageSeconds(ctx context.Context, since, now time.Time) (map[int64]map[string]int64, error)
	CreateQuotaRequest(ctx context.Context, by models.User, projectID int64, spec, kind string, c models.QuotaChange, reason string, now time.Time) (models.QuotaRequest, error)
	DecideQuotaRequest(ctx context.Context, by models.User, id int64, approve bool, comment string, now time.Time) (models.QuotaRequest, error)
	QuotaRequests(ctx context.Context, projectIDs []int64, state string) ([]models.QuotaRequestRow, error)
	Audit(ctx context.Context, at time.Time, actor, action string, projectID *int64, subject string, before, after any) error
	// Projects and members in the browser, approvals with context.
	CreateProject(ctx context.Context, actor, name string, tags []string, now time.Time) (models.Project, error)
	SetProjectArchived(ctx context.Context, actor string, projectID int64, archived bool, now time.Time) error
	ProjectMembers(ctx context.Context, projectID int64) ([]models.MemberRow, error)
	Users(ctx context.Context) ([]models.User, error)
	BoardOptions(ctx context.Context) (pools, specs, projects []string, err error)
	Prices(ctx context.Context, month string) ([]models.Price, error)
	Tasks(ctx context.Context, f models.TaskFilter) ([]models.TaskRow, error)
	ActiveTasks(ctx context.Context) ([]models.TaskRow, error)
	// Advance reservations.
	Reservations(ctx context.Context, from, to time.Time) ([]models.ReservationRow, error)
	CancelReservation(ctx context.Context, by models.User, id int64, now time.Time) (models.Reservation, error)
	// The pools a reservation in a region chooses its spec from, and their regions.
	ConfiguredPools(ctx context.Context) ([]models.ConfiguredPool, error)
	PoolRegions(ctx context.Context) ([]string, error)
	// What the fleet reaches and what is promised of it: the ceilings the approvals page and
	// the request form show.
	Ceilings(ctx context.Context, now time.Time) (models.Ceilings, error)
	// What a quota change saved (pilot): the project's periods on its pools, the replay.
	pilot.ChangeSource
}

// New returns the area over store, measuring quota changes through changes (the server's
// one cache, web.NewAreas).
func New(c *handlers.Core, store Store, changes *pilot.ChangeCache) *Handler {
	return &Handler{Core: c, store: store, changes: changes}
}
