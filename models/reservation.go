package models

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Advance reservations (预约): a project asks, through a quota request of kind reservation,
// for N cards of one spec over a window, once or repeating (reservation_repeat.go);
// approving the request (the same lead/admin rules as every quota request) books one
// Reservation per window of it, all in the approval's transaction, so each occurrence is
// held, grown for and billed as a single window is, and cancelled on its own. The scheduler holds the
// booked cards for the project during the window, and the scaling loop grows the spec's
// pool ahead of it by the pool's boot timeout. A reservation's state is its request's while
// pending or refused, then approved, or cancelled once cancelled.

// RequestReservation books cards of a spec for a window (see QuotaChange.ReserveGPUs).
const RequestReservation = "reservation"

// Bounds of a reservation request.
const (
	// MaxReservationSpan is the longest window.
	MaxReservationSpan = 31 * 24 * time.Hour
	// MaxReservationWeeks is the most weekly repeats after the first window, and the
	// longest a repeating reservation runs (ReserveUntil after its first start).
	MaxReservationWeeks = 26
)

// Audit actions of reservations.
const (
	AuditReservationBook   = "reservation-book"
	AuditReservationCancel = "reservation-cancel"
)

// Reservation states, as pages and the API show them.
const (
	ReservationRequested = "requested"
	ReservationApproved  = "approved"
	ReservationRefused   = "refused"
	ReservationCancelled = "cancelled"
)

// Reservation is one booked window: GPUs cards of Spec (in Region; "" for any) held for the
// project from StartsAt to EndsAt (UTC). RequestID is the approved request that booked it.
type Reservation struct {
	ID          int64
	ProjectID   int64
	RequestID   int64
	Spec        string
	Region      string
	GPUs        int `gorm:"column:gpus"`
	StartsAt    time.Time
	EndsAt      time.Time
	CancelledAt *time.Time
	CancelledBy *int64
	CreatedAt   time.Time
}

func (Reservation) TableName() string { return "reservations" }

// State is the reservation's state: approved, or cancelled.
func (r Reservation) State() string {
	if r.CancelledAt != nil {
		return ReservationCancelled
	}
	return ReservationApproved
}

// ReservationRow is a reservation with its project's name, and its place among the booked
// windows of its request: window Occurrence (from 1) of Occurrences, cancelled ones left
// out; 1 of 1 for a single window.
type ReservationRow struct {
	Reservation
	Project                 string
	Occurrence, Occurrences int `gorm:"-"`
}

// ReservedCardSeconds are the card-seconds a reservation change books over all its windows.
func (c QuotaChange) ReservedCardSeconds() int64 {
	var s int64
	for _, w := range c.Windows() {
		s += int64(c.ReserveGPUs) * int64(w.Ends.Sub(w.Begins)/time.Second)
	}
	return s
}

// checkReservation validates a reservation change against the project's quota of its spec.
func checkReservation(c QuotaChange, q Quota, now time.Time) error {
	switch {
	case len(c.ReserveRegion) > 64 || len(c.ReserveSpec) > 100:
		return fieldErr("reserve_region", "must be a pool's region")
	case q.Spec == "" && (c.ReserveRegion == "" || c.ReserveSpec == ""):
		return fieldErr("spec", "a reservation books cards of one spec, or of the spec chosen in its region")
	case q.Spec != "" && c.ReserveSpec != "" && c.ReserveSpec != q.Spec:
		return fieldErr("reserve_spec", "must be the request's spec %s", q.Spec)
	case c.ReserveGPUs < 1 || c.ReserveGPUs > MaxGPUCount:
		return checkRange("reserve_gpus", int64(c.ReserveGPUs), 1, MaxGPUCount)
	case q.MaxGPUs > 0 && c.ReserveGPUs > q.MaxGPUs:
		return fieldErr("reserve_gpus", "must be at most the project's limit of %d GPUs, got %d", q.MaxGPUs, c.ReserveGPUs)
	case c.ReserveBegins == nil:
		return fieldErr("reserve_begins", "is required")
	case c.ReserveEnds == nil || !c.ReserveEnds.After(*c.ReserveBegins):
		return fieldErr("reserve_ends", "must be after the begin")
	case c.ReserveEnds.Sub(*c.ReserveBegins) > MaxReservationSpan:
		return fieldErr("reserve_ends", "a window lasts at most 31 days")
	case !c.ReserveBegins.After(now):
		return fieldErr("reserve_begins", "must be in the future")
	}
	return checkRepeat(c)
}

// bookReservations books the windows of the approved reservation request req.
func bookReservations(tx *gorm.DB, by User, req QuotaRequest, now time.Time) error {
	c := req.Parsed()
	for _, w := range c.Windows() {
		r := Reservation{ProjectID: req.ProjectID, RequestID: req.ID, Spec: cmp.Or(req.Spec, c.ReserveSpec), Region: c.ReserveRegion, GPUs: c.ReserveGPUs,
			StartsAt: w.Begins, EndsAt: w.Ends, CreatedAt: now}
		if err := tx.Create(&r).Error; err != nil {
			return err
		}
		if err := audit(tx, now, by.Name, AuditReservationBook, &req.ProjectID, fmt.Sprintf("reservation %d by request %d", r.ID, req.ID), nil, r); err != nil {
			return err
		}
	}
	return nil
}

// Reservations returns the booked reservations, cancelled ones left out, whose window ends
// after from and starts before to, by start then id.
func (s *Store) Reservations(ctx context.Context, from, to time.Time) ([]ReservationRow, error) {
	var out []ReservationRow
	err := s.db.WithContext(ctx).Table("reservations").
		Select("reservations.*, projects.name AS project").
		Joins("JOIN projects ON projects.id = reservations.project_id").
		Where("reservations.cancelled_at IS NULL AND reservations.ends_at > ? AND reservations.starts_at < ?", UTC(from), UTC(to)).
		Order("reservations.starts_at, reservations.id").Scan(&out).Error
	if err == nil {
		err = s.numberOccurrences(ctx, out)
	}
	if err != nil {
		return nil, fmt.Errorf("models: reservations: %w", err)
	}
	return out, nil
}

// numberOccurrences sets each row's place among the booked windows of its request.
func (s *Store) numberOccurrences(ctx context.Context, rows []ReservationRow) error {
	if len(rows) == 0 {
		return nil
	}
	reqs := make([]int64, 0, len(rows))
	for _, r := range rows {
		reqs = append(reqs, r.RequestID)
	}
	var all []Reservation
	if err := s.db.WithContext(ctx).Select("id, request_id").Where("request_id IN ? AND cancelled_at IS NULL", reqs).
		Order("starts_at, id").Find(&all).Error; err != nil {
		return err
	}
	place, count := map[int64]int{}, map[int64]int{}
	for _, r := range all {
		count[r.RequestID]++
		place[r.ID] = count[r.RequestID]
	}
	for i := range rows {
		rows[i].Occurrence, rows[i].Occurrences = place[rows[i].ID], count[rows[i].RequestID]
	}
	return nil
}

// CancelReservation cancels a reservation whose window has not ended. The caller checks that
// by leads its project or is an admin. Cancelling one already cancelled or ended is
// ErrConflict.
func (s *Store) CancelReservation(ctx context.Context, by User, id int64, now time.Time) (Reservation, error) {
	now = UTC(now)
	var r Reservation
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := forUpdate(tx).Where("id = ?", id).Take(&r).Error; err != nil {
			return notFound(fmt.Sprintf("reservation %d", id), err)
		}
		if r.CancelledAt != nil || !r.EndsAt.After(now) {
			return fmt.Errorf("models: reservation %d is %s or over: %w", id, r.State(), ErrConflict)
		}
		before := r
		res := tx.Model(&Reservation{}).Where("id = ? AND cancelled_at IS NULL", id).
			Updates(map[string]any{"cancelled_at": now, "cancelled_by": by.ID})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return fmt.Errorf("models: reservation %d cancelled meanwhile: %w", id, ErrConflict)
		}
		r.CancelledAt, r.CancelledBy = &now, &by.ID
		return audit(tx, now, by.Name, AuditReservationCancel, &r.ProjectID, fmt.Sprintf("reservation %d", id), before, r)
	})
	if err != nil {
		if errors.Is(err, ErrConflict) || errors.Is(err, ErrNotFound) {
			return Reservation{}, err
		}
		return Reservation{}, fmt.Errorf("models: cancel reservation %d: %w", id, err)
	}
	return r, nil
}

// BookingHorizon is how far ahead the loops read reservations: further than any pool's lead.
const BookingHorizon = 7 * 24 * time.Hour

// BookingLead is how long before a window the pools of spec (in region, unless "") grow for
// it, and the scheduler starts holding its cards: the longest boot timeout (with its
// default) of those enabled pools; zero when none is enabled.
func BookingLead(pools []ConfiguredPool, spec, region string) time.Duration {
	var lead time.Duration
	for _, p := range pools {
		if p.Spec == spec && p.Config.Enabled && (region == "" || p.Config.Region == region) {
			lead = max(lead, time.Duration(p.Config.WithDefaults().BootTimeoutS)*time.Second)
		}
	}
	return lead
}

// BilledReservations returns the reservations a bill from from to to charges for: those whose
// window, up to its cancellation, overlaps it, with a cancelled one's EndsAt cut at its
// cancellation (a window cancelled before it began is left out), by start then id.
func (s *Store) BilledReservations(ctx context.Context, from, to time.Time) ([]Reservation, error) {
	var rows []Reservation
	err := s.db.WithContext(ctx).Where("ends_at > ? AND starts_at < ?", UTC(from), UTC(to)).
		Order("starts_at, id").Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("models: billed reservations: %w", err)
	}
	out := rows[:0]
	for _, r := range rows {
		if r.CancelledAt != nil && r.CancelledAt.Before(r.EndsAt) {
			r.EndsAt = UTC(*r.CancelledAt)
		}
		if r.EndsAt.After(r.StartsAt) && r.EndsAt.After(UTC(from)) {
			r.StartsAt, r.EndsAt = UTC(r.StartsAt), UTC(r.EndsAt)
			out = append(out, r)
		}
	}
	return out, nil
}
