package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"
)

// ErrForbidden is returned (wrapped) when the rules forbid an action whoever asks, such as
// deciding one's own request.
var ErrForbidden = errors.New("forbidden")

// Kinds of quota request.
const (
	RequestLimit    = "limit"    // raise (or lower) the concurrent GPU limit
	RequestBudget   = "budget"   // add card-hours to the monthly budget
	RequestExtend   = "extend"   // move the end date later
	RequestOverride = "override" // a temporary limit between two times
	// RequestGuarantee sets the guaranteed share (GPUs other projects borrow only briefly).
	RequestGuarantee = "guarantee"
	// RequestOverflow allows overflow beyond the quota at a rate, or stops allowing it.
	RequestOverflow = "overflow"
)

// RequestKinds are the kinds of quota request.
var RequestKinds = []string{RequestBudget, RequestLimit, RequestGuarantee, RequestOverflow, RequestExtend, RequestOverride, RequestReservation}

// Request states.
const (
	RequestPending  = "pending"
	RequestApproved = "approved"
	RequestRejected = "rejected"
)

// QuotaChange is what a request asks for; the field of its kind is set.
type QuotaChange struct {
	MaxGPUs         int        `json:"max_gpus,omitempty"`
	AddCardHours    int64      `json:"add_card_hours,omitempty"`
	EndsAt          *time.Time `json:"ends_at,omitempty"`
	OverrideMaxGPUs int        `json:"override_max_gpus,omitempty"`
	OverrideBegins  *time.Time `json:"override_begins,omitempty"`
	OverrideEnds    *time.Time `json:"override_ends,omitempty"`
	// GuaranteedGPUs is the guaranteed share asked (kind guarantee).
	GuaranteedGPUs *int `json:"guaranteed_gpus,omitempty"`
	// OverflowAllowed and OverflowRateFen are the overflow asked (kind overflow); a rate of 0
	// is the price list's overflow rate.
	OverflowAllowed *bool `json:"overflow_allowed,omitempty"`
	OverflowRateFen int64 `json:"overflow_rate_fen,omitempty"`
	// ReserveGPUs cards of the request's spec booked from ReserveBegins to ReserveEnds, and
	// again on each of the next ReserveWeeks weeks, or as ReserveRepeat says (kind
	// reservation, see reservation.go and reservation_repeat.go).
	ReserveGPUs   int        `json:"reserve_gpus,omitempty"`
	ReserveBegins *time.Time `json:"reserve_begins,omitempty"`
	ReserveEnds   *time.Time `json:"reserve_ends,omitempty"`
	ReserveWeeks  int        `json:"reserve_weeks,omitempty"`
	// ReserveRepeat (RepeatDaily or RepeatWeekly) repeats the window on every day, or on the
	// ReserveWeekdays ("mon" … "sun"; none: the first window's), until ReserveUntil, at the
	// first window's wall-clock time in ReserveZone (an IANA name; the billing zone when
	// filed without one).
	// ReserveRegion, when set, holds the cards in that region only (a pool setting region);
	// ReserveSpec is then the spec booked: the request's, or for a request on the project's
	// all-spec quota the one chosen when it is filed (see ReservationSpec).
	ReserveRegion   string     `json:"reserve_region,omitempty"`
	ReserveSpec     string     `json:"reserve_spec,omitempty"`
	ReserveRepeat   string     `json:"reserve_repeat,omitempty"`
	ReserveWeekdays []string   `json:"reserve_weekdays,omitempty"`
	ReserveUntil    *time.Time `json:"reserve_until,omitempty"`
	ReserveZone     string     `json:"reserve_zone,omitempty"`
}

// QuotaRequest asks a project's leads for a quota change (配额审批).
type QuotaRequest struct {
	ID          int64
	ProjectID   int64
	Spec        string
	Kind        string
	Change      string // QuotaChange as JSON
	Reason      string
	RequestedBy int64
	State       string
	DecidedBy   *int64
	DecidedAt   *time.Time
	Comment     string
	CreatedAt   time.Time
}

// Parsed returns the request's change.
func (r QuotaRequest) Parsed() QuotaChange {
	var c QuotaChange
	json.Unmarshal([]byte(r.Change), &c) // written by CreateQuotaRequest; always valid
	return c
}

// apply returns q changed as the request asks.
func (c QuotaChange) apply(kind string, q Quota) Quota {
	switch kind {
	case RequestLimit:
		q.MaxGPUs = c.MaxGPUs
		q.GuaranteedGPUs = min(q.GuaranteedGPUs, c.MaxGPUs)
	case RequestBudget:
		q.BudgetCardHours += c.AddCardHours
	case RequestExtend:
		q.EndsAt = UTC(*c.EndsAt)
	case RequestOverride:
		b, e := UTC(*c.OverrideBegins), UTC(*c.OverrideEnds)
		q.OverrideMaxGPUs, q.OverrideBegins, q.OverrideEnds = c.OverrideMaxGPUs, &b, &e
	case RequestGuarantee:
		q.GuaranteedGPUs = *c.GuaranteedGPUs
	case RequestOverflow:
		q.OverflowAllowed, q.OverflowRateFen = *c.OverflowAllowed, 0
		if *c.OverflowAllowed {
			q.OverflowRateFen = c.OverflowRateFen
		}
	}
	return q
}

// checkChange validates a change of kind against the quota it would change.
func checkChange(kind string, c QuotaChange, q Quota, now time.Time) error {
	switch kind {
	case RequestLimit:
		return checkRange("max_gpus", int64(c.MaxGPUs), 1, MaxGPUCount)
	case RequestBudget:
		// Checked against what is left, so the sum cannot pass MaxCardHours (or wrap).
		if err := checkRange("add_card_hours", c.AddCardHours, 1, MaxCardHours-q.BudgetCardHours); err != nil {
			return err
		}
	case RequestExtend:
		if c.EndsAt == nil || !c.EndsAt.After(q.EndsAt) {
			return fieldErr("ends_at", "must be after the current end %s", q.EndsAt.Format("2006-01-02"))
		}
	case RequestOverride:
		switch {
		case c.OverrideMaxGPUs < 1 || c.OverrideMaxGPUs > MaxGPUCount:
			return checkRange("override_max_gpus", int64(c.OverrideMaxGPUs), 1, MaxGPUCount)
		case c.OverrideBegins == nil || c.OverrideEnds == nil || !c.OverrideEnds.After(*c.OverrideBegins):
			return fieldErr("override_ends", "must be after the begin")
		case !c.OverrideEnds.After(now):
			return fieldErr("override_ends", "must be in the future")
		case q.OverrideEnds != nil && q.OverrideEnds.After(now) &&
			c.OverrideBegins.Before(*q.OverrideEnds) && q.OverrideBegins.Before(*c.OverrideEnds):
			return fieldErr("override_begins", "overlaps the override from %s to %s",
				q.OverrideBegins.Format(time.RFC3339), q.OverrideEnds.Format(time.RFC3339))
		}
	case RequestGuarantee:
		if c.GuaranteedGPUs == nil {
			return fieldErr("guaranteed_gpus", "is required")
		}
		if *c.GuaranteedGPUs < 0 || *c.GuaranteedGPUs > q.MaxGPUs {
			return fieldErr("guaranteed_gpus", "must be between 0 and the limit %d, got %d", q.MaxGPUs, *c.GuaranteedGPUs)
		}
	case RequestOverflow:
		if c.OverflowAllowed == nil {
			return fieldErr("overflow_allowed", "is required")
		}
		if err := checkRange("overflow_rate_fen", c.OverflowRateFen, 0, MaxRateFen); err != nil {
			return err
		}
	case RequestReservation:
		return checkReservation(c, q, now)
	default:
		return fieldErr("kind", "must be one of %s, got %q", strings.Join(RequestKinds, ", "), truncate(kind, 20))
	}
	return nil
}

// CreateQuotaRequest files a request by a user for a project's quota of spec.
func (s *Store) CreateQuotaRequest(ctx context.Context, by User, projectID int64, spec, kind string, c QuotaChange, reason string, now time.Time) (QuotaRequest, error) {
	now = UTC(now)
	var req QuotaRequest
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// Every problem at once: the reason, and the change against the quota it changes.
		var ps Problems
		ps.Add(CheckRequestReason(reason))
		var p Project
		if err := tx.Where("id = ?", projectID).Take(&p).Error; err == nil {
			ps.Add(checkInUse(p, "project"))
		}
		q, err := quotaFor(tx, projectID, spec)
		if err := ps.Add(err); err != nil {
			return err
		}
		if err == nil {
			ps.Add(checkChange(kind, c, q, now))
		}
		if err := ps.Err(); err != nil {
			return err
		}
		if kind == RequestOverride {
			if err := noOverlappingPending(tx, q, c); err != nil {
				return err
			}
		}
		// A request the fleet could not hold now is refused when filed; its approval
		// checks again, under lock (checkCeilings).
		if err := checkCeilings(tx, kind, c, q, now); err != nil {
			return err
		}
		b, _ := json.Marshal(c)
		req = QuotaRequest{ProjectID: projectID, Spec: spec, Kind: kind, Change: string(b), Reason: reason,
			RequestedBy: by.ID, State: RequestPending, CreatedAt: now}
		if err := tx.Create(&req).Error; err != nil {
			return err
		}
		if err := audit(tx, now, by.Name, AuditRequestCreate, &projectID, fmt.Sprintf("request %d: %s %s", req.ID, kind, specLabel(spec)), nil, req); err != nil {
			return err
		}
		return notifyProject(tx, projectID, ProjectRoleLead, fmt.Sprintf("request:%d", req.ID), "request-pending",
			fmt.Sprintf("%s asks: %s for %s — %s", by.Name, kind, specLabel(spec), truncate(reason, 200)), now)
	})
	if err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			return QuotaRequest{}, err
		}
		return QuotaRequest{}, fmt.Errorf("models: create quota request: %w", err)
	}
	return req, nil
}

// CheckRequestReason refuses a request's reason that is missing or too long.
func CheckRequestReason(reason string) error {
	if strings.TrimSpace(reason) == "" || len(reason) > 2000 || !utf8.ValidString(reason) {
		return fieldErr("reason", "give a reason of at most 2,000 bytes")
	}
	return nil
}

// quotaFor returns a project's quota for spec, or a FieldError when there is none.
func quotaFor(tx *gorm.DB, projectID int64, spec string) (Quota, error) {
	var q Quota
	err := tx.Where("project_id = ? AND spec = ?", projectID, spec).Take(&q).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		var n int64
		tx.Model(&Project{}).Where("id = ?", projectID).Count(&n)
		if n == 0 {
			return q, fieldErr("project", "unknown project %d", projectID)
		}
		return q, fieldErr("spec", "the project has no quota for %s", specLabel(spec))
	}
	return q, err
}

// checkCeilings refuses a change of kind to q that would promise more of the fleet than it
// can reach: a guarantee past what the spec's pools reach less the other projects'
// guarantees, or a booking past the project's limit or the spec's reach at some moment.
func checkCeilings(tx *gorm.DB, kind string, c QuotaChange, q Quota, now time.Time) error {
	if kind != RequestReservation && kind != RequestGuarantee {
		return nil
	}
	cs, err := loadCeilings(tx, now)
	if err != nil {
		return err
	}
	if kind == RequestReservation {
		return cs.checkBooking(q, c)
	}
	return cs.checkGuarantee(c.apply(kind, q), q.GuaranteedGPUs)
}

// noOverlappingPending refuses an override request overlapping another pending one.
func noOverlappingPending(tx *gorm.DB, q Quota, c QuotaChange) error {
	var pending []QuotaRequest
	if err := tx.Where("project_id = ? AND spec = ? AND kind = ? AND state = ?", q.ProjectID, q.Spec, RequestOverride, RequestPending).
		Find(&pending).Error; err != nil {
		return err
	}
	for _, p := range pending {
		o := p.Parsed()
		if c.OverrideBegins.Before(*o.OverrideEnds) && o.OverrideBegins.Before(*c.OverrideEnds) {
			return fieldErr("override_begins", "overlaps pending request %d", p.ID)
		}
	}
	return nil
}

// DecideQuotaRequest approves or rejects a pending request. Approval applies the change to the
// quota in the same transaction; a rejection needs comment, the reason the requester reads (a
// FieldError on "reason" without one). Deciding one's own request is ErrForbidden, and so is a
// lead's approval above the project's contract (a *FieldError too, naming the value; an
// admin's raises the contract); deciding a request already decided is ErrConflict. A change
// the fleet cannot hold (checkCeilings) is a *FieldError. The caller checks that by leads
// the project.
func (s *Store) DecideQuotaRequest(ctx context.Context, by User, id int64, approve bool, comment string, now time.Time) (QuotaRequest, error) {
	now = UTC(now)
	if len(comment) > 2000 || !utf8.ValidString(comment) {
		return QuotaRequest{}, fieldErr("comment", "must be valid UTF-8 of at most 2,000 bytes")
	}
	var req QuotaRequest
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// The request, then its project, is locked: concurrent decisions of the same
		// request, or approvals changing one quota, run one after another.
		if err := forUpdate(tx).Where("id = ?", id).Take(&req).Error; err != nil {
			return notFound(fmt.Sprintf("quota request %d", id), err)
		}
		if err := lockProject(tx, req.ProjectID); err != nil {
			return err
		}
		switch {
		case req.State != RequestPending:
			return fmt.Errorf("models: request %d was already %s: %w", id, req.State, ErrConflict)
		case req.RequestedBy == by.ID:
			return fmt.Errorf("models: nobody decides their own request: %w", ErrForbidden)
		case !approve && strings.TrimSpace(comment) == "":
			// The requester reads why: a rejection says it.
			return fieldErr("reason", "give the reason for rejecting the request")
		}
		state, action := RequestRejected, AuditReject
		if approve {
			state, action = RequestApproved, AuditApprove
			q, err := quotaFor(tx, req.ProjectID, req.Spec)
			if err != nil {
				return err
			}
			if err := checkChange(req.Kind, req.Parsed(), q, now); err != nil {
				return err
			}
			admin, err := isAdmin(tx, by.ID)
			if err != nil {
				return err
			}
			if fe := AboveContract(req.Kind, req.Parsed(), q); fe != nil && !admin {
				return aboveContract{fe}
			}
			if err := lockPools(tx); err != nil {
				return err
			}
			if err := checkCeilings(tx, req.Kind, req.Parsed(), q, now); err != nil {
				return err
			}
			if req.Kind == RequestReservation {
				if err := bookReservations(tx, by, req, now); err != nil {
					return err
				}
			} else if err := applyToQuota(tx, by, req, q, now); err != nil {
				return err
			}
		}
		res := tx.Model(&QuotaRequest{}).Where("id = ? AND state = ?", id, RequestPending).
			Updates(map[string]any{"state": state, "decided_by": by.ID, "decided_at": now, "comment": comment})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return fmt.Errorf("models: request %d decided meanwhile: %w", id, ErrConflict)
		}
		before := req
		req.State, req.DecidedBy, req.DecidedAt, req.Comment = state, &by.ID, &now, comment
		if err := audit(tx, now, by.Name, action, &req.ProjectID, fmt.Sprintf("request %d", id), before, req); err != nil {
			return err
		}
		return notify(tx, []int64{req.RequestedBy}, fmt.Sprintf("decided:%d", id), "request-"+state,
			fmt.Sprintf("request %d (%s for %s) was %s by %s: %s", id, req.Kind, specLabel(req.Spec), state, by.Name, truncate(comment, 200)), now)
	})
	if err != nil {
		var fe *FieldError
		if errors.As(err, &fe) || errors.Is(err, ErrConflict) || errors.Is(err, ErrForbidden) || errors.Is(err, ErrNotFound) {
			return QuotaRequest{}, err
		}
		return QuotaRequest{}, fmt.Errorf("models: decide request %d: %w", id, err)
	}
	return req, nil
}

// applyToQuota saves the quota q changed as the approved request req asks. The contract
// rises to what was approved (only an admin approves above it); a temporary limit leaves
// it as it was.
func applyToQuota(tx *gorm.DB, by User, req QuotaRequest, q Quota, now time.Time) error {
	after := req.Parsed().apply(req.Kind, q)
	after.ContractMaxGPUs, after.ContractGuaranteedGPUs, after.ContractBudgetCardHours = after.Contract()
	after.UpdatedAt = now
	if err := tx.Save(&after).Error; err != nil {
		return err
	}
	return audit(tx, now, by.Name, AuditQuotaChange, &req.ProjectID, "quota "+specLabel(req.Spec)+byRequest+strconv.FormatInt(req.ID, 10), q, after)
}

// QuotaRequests returns requests of the given projects (all when nil), pending first, newest
// first within.
func (s *Store) QuotaRequests(ctx context.Context, projectIDs []int64, state string) ([]QuotaRequestRow, error) {
	q := s.db.WithContext(ctx).Table("quota_requests").
		Select("quota_requests.*, projects.name AS project, users.name AS requester").
		Joins("JOIN projects ON projects.id = quota_requests.project_id").
		Joins("JOIN users ON users.id = quota_requests.requested_by")
	if projectIDs != nil {
		q = q.Where("quota_requests.project_id IN ?", append(projectIDs, -1))
	}
	if state != "" {
		q = q.Where("quota_requests.state = ?", state)
	}
	var out []QuotaRequestRow
	if err := q.Order("quota_requests.id DESC").Limit(500).Scan(&out).Error; err != nil {
		return nil, fmt.Errorf("models: quota requests: %w", err)
	}
	return out, nil
}

// PendingRequests counts the pending requests of the given projects (all when nil).
func (s *Store) PendingRequests(ctx context.Context, projectIDs []int64) (int, error) {
	q := s.db.WithContext(ctx).Model(&QuotaRequest{}).Where("state = ?", RequestPending)
	if projectIDs != nil {
		q = q.Where("project_id IN ?", append(projectIDs, -1))
	}
	var n int64
	if err := q.Count(&n).Error; err != nil {
		return 0, fmt.Errorf("models: pending requests: %w", err)
	}
	return int(n), nil
}

// QuotaRequestRow is a request with its project's and requester's names.
type QuotaRequestRow struct {
	QuotaRequest
	Project   string
	Requester string
}

func (QuotaRequest) TableName() string { return "quota_requests" }
