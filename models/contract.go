package models

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"
)

// Contracts are the ceiling (trust boundaries, issue 32). A project's quota is its contract,
// which an admin sets (SetQuota): the limit, guarantee and budget in force, and, never
// below them, how far a lead of the project may raise each (Quota.Contract). A lead approves
// a request within it; above it only an admin does, and the admin's approval raises the
// contract to what it approved (AboveContract). Whoever decides, what is promised of the
// fleet never passes what the fleet can reach: the guarantees of a spec together, and its
// bookings at any moment, stay within the cards its pools can reach (Ceilings), and one
// project's bookings at any moment within its limit. The checks run in the transaction that
// writes the guarantee or the booking, after every pool's row is locked (lockPools), so
// approvals at once are checked one after another on SQLite and Postgres alike.

// Room is a ceiling and what is already promised of it, in cards.
type Room struct{ Ceiling, Taken int }

// Left is what a further promise may take; never below 0.
func (r Room) Left() int { return max(r.Ceiling-r.Taken, 0) }

// reachKey is a spec (every spec for "") in a region (every region for "").
type reachKey struct{ spec, region string }

// Ceilings is what the pools can reach and what is promised of it: the guarantees of the
// quotas not ended and the booked windows not cancelled nor ended.
type Ceilings struct {
	reach      map[reachKey]int
	guarantees []Quota
	bookings   []Reservation
}

// Reach is the cards the pools of spec (every spec for "") can reach: each pool's largest
// size (max nodes × GPUs per node) while the scaling loop sizes it (a pool enabled and not
// static), else the cards its nodes have; a pool with more nodes than that counts them.
func (cs Ceilings) Reach(spec string) int { return cs.reach[reachKey{spec, ""}] }

// Ceilings reads what the fleet can reach and what is promised of it at now.
func (s *Store) Ceilings(ctx context.Context, now time.Time) (Ceilings, error) {
	cs, err := loadCeilings(s.db.WithContext(ctx), now)
	if err != nil {
		return cs, fmt.Errorf("models: ceilings: %w", err)
	}
	return cs, nil
}

// loadCeilings reads the ceilings in tx.
func loadCeilings(tx *gorm.DB, now time.Time) (Ceilings, error) {
	cs := Ceilings{reach: map[reachKey]int{}}
	var pools []Pool
	if err := tx.Order("id").Find(&pools).Error; err != nil {
		return cs, err
	}
	var policies []PoolPolicy
	if err := tx.Find(&policies).Error; err != nil {
		return cs, err
	}
	var counts []struct {
		PoolID int64
		Spec   string
		N      int
	}
	err := tx.Table("gpus").Select("nodes.pool_id, gpus.spec, COUNT(*) AS n").Joins("JOIN nodes ON nodes.id = gpus.node_id").
		Where("nodes.state <> ?", NodeRemoved).Group("nodes.pool_id, gpus.spec").Scan(&counts).Error
	if err != nil {
		return cs, err
	}
	cards := map[int64]map[string]int{}
	for _, c := range counts {
		if cards[c.PoolID] == nil {
			cards[c.PoolID] = map[string]int{}
		}
		cards[c.PoolID][c.Spec] += c.N
	}
	scaled := map[int64]PoolConfig{}
	for _, p := range policies {
		var cfg PoolConfig
		if err := json.Unmarshal([]byte(p.Config), &cfg); err == nil && p.Enabled && cfg.Provider != "static" {
			scaled[p.PoolID] = cfg
		}
	}
	for _, p := range pools {
		specs := cards[p.ID]
		if specs == nil {
			specs = map[string]int{}
		}
		if cfg, ok := scaled[p.ID]; ok {
			spec := cmp.Or(cfg.Spec, p.Spec)
			specs[spec] = max(specs[spec], cfg.MaxNodes*cfg.GPUsPerNode)
		}
		for spec, n := range specs {
			cs.reach[reachKey{spec, ""}] += n
			cs.reach[reachKey{"", ""}] += n
			if p.Region != "" {
				cs.reach[reachKey{spec, p.Region}] += n
			}
		}
	}
	if err := tx.Where("guaranteed_gpus > 0 AND ends_at > ?", UTC(now)).Find(&cs.guarantees).Error; err != nil {
		return cs, err
	}
	err = tx.Where("cancelled_at IS NULL AND ends_at > ?", UTC(now)).Order("starts_at, id").Find(&cs.bookings).Error
	return cs, err
}

// lockPools locks every pool's row: the steps that promise cards of the fleet (a guarantee,
// a booking) take it before they read the ceilings, so they run one after another, and no
// pool shrinks under them meanwhile.
func lockPools(tx *gorm.DB) error {
	var ids []Pool
	return forUpdate(tx).Select("id").Order("id").Find(&ids).Error
}

// GuaranteeRoom is what the pools of q's spec can reach, and what other projects' quotas
// of that spec guarantee.
func (cs Ceilings) GuaranteeRoom(q Quota) Room {
	r := Room{Ceiling: cs.Reach(q.Spec)}
	for _, o := range cs.guarantees {
		if o.Spec == q.Spec && o.ProjectID != q.ProjectID {
			r.Taken += o.GuaranteedGPUs
		}
	}
	return r
}

// checkGuarantee refuses q's guarantee when it grew past what is left of the fleet's reach;
// one that did not grow (from was) is kept, even where the fleet shrank since.
func (cs Ceilings) checkGuarantee(q Quota, was int) error {
	if q.GuaranteedGPUs <= was {
		return nil
	}
	if r := cs.GuaranteeRoom(q); q.GuaranteedGPUs > r.Left() {
		return fieldErr("guaranteed_gpus", "the pools of %s reach %d GPUs and %d of them are guaranteed to other projects: %d left, got %d",
			specLabel(q.Spec), r.Ceiling, r.Taken, r.Left(), q.GuaranteedGPUs)
	}
	return nil
}

// windowRoom is the room one window of a reservation has: under its project's limit, the
// spec's reach, and its region's reach (a zero Room for none).
type windowRoom struct {
	w                     ReservationWindow
	project, spec, region Room
}

// windowRooms is the room of each window the reservation change c on quota q books, each
// counting the windows before it.
func (cs Ceilings) windowRooms(q Quota, c QuotaChange) []windowRoom {
	spec := cmp.Or(q.Spec, c.ReserveSpec)
	booked := slices.Clone(cs.bookings)
	var out []windowRoom
	for _, w := range c.Windows() {
		x := windowRoom{w: w,
			project: Room{q.MaxGPUs, peak(booked, w, func(r Reservation) bool {
				return r.ProjectID == q.ProjectID && (q.Spec == "" || r.Spec == q.Spec)
			})},
			spec: Room{cs.Reach(spec), peak(booked, w, func(r Reservation) bool { return r.Spec == spec })},
		}
		if c.ReserveRegion != "" {
			x.region = Room{cs.reach[reachKey{spec, c.ReserveRegion}], peak(booked, w, func(r Reservation) bool {
				return r.Spec == spec && r.Region == c.ReserveRegion
			})}
		}
		out = append(out, x)
		booked = append(booked, Reservation{ProjectID: q.ProjectID, Spec: spec, Region: c.ReserveRegion, GPUs: c.ReserveGPUs,
			StartsAt: w.Begins, EndsAt: w.Ends})
	}
	return out
}

// BookingRoom is the room the reservation change c on quota q has: of its windows, the
// least under the project's limit, under the spec's reach, and under its region's reach
// (a zero Room without a region).
func (cs Ceilings) BookingRoom(q Quota, c QuotaChange) (project, spec, region Room) {
	for i, x := range cs.windowRooms(q, c) {
		if i == 0 || x.project.Left() < project.Left() {
			project = x.project
		}
		if i == 0 || x.spec.Left() < spec.Left() {
			spec = x.spec
		}
		if i == 0 || x.region.Left() < region.Left() {
			region = x.region
		}
	}
	return project, spec, region
}

// checkBooking refuses the reservation change c on quota q when a window of it would pass
// the project's limit, or the reach of its spec's pools (in its region, when it names one),
// at some moment, naming the first such window (in the change's zone, as it was asked) and
// what is left there.
func (cs Ceilings) checkBooking(q Quota, c QuotaChange) error {
	spec, loc := cmp.Or(q.Spec, c.ReserveSpec), c.zone()
	for _, x := range cs.windowRooms(q, c) {
		from, to := x.w.Begins.In(loc).Format("2006-01-02 15:04 MST"), x.w.Ends.In(loc).Format("2006-01-02 15:04 MST")
		switch {
		case c.ReserveGPUs > x.project.Left():
			return fieldErr("reserve_gpus", "from %s to %s the project has %d GPUs of its limit of %d booked: %d left, got %d",
				from, to, x.project.Taken, x.project.Ceiling, x.project.Left(), c.ReserveGPUs)
		case c.ReserveGPUs > x.spec.Left():
			return fieldErr("reserve_gpus", "from %s to %s the pools of %s reach %d GPUs and %d of them are booked: %d left, got %d",
				from, to, spec, x.spec.Ceiling, x.spec.Taken, x.spec.Left(), c.ReserveGPUs)
		case c.ReserveRegion != "" && c.ReserveGPUs > x.region.Left():
			return fieldErr("reserve_gpus", "from %s to %s the pools of %s in region %s reach %d GPUs and %d of them are booked: %d left, got %d",
				from, to, spec, c.ReserveRegion, x.region.Ceiling, x.region.Taken, x.region.Left(), c.ReserveGPUs)
		}
	}
	return nil
}

// peak is the most cards the reservations rs that keep says hold at one moment of w: the
// count at w's start or at a start within it, of those overlapping w.
func peak(rs []Reservation, w ReservationWindow, keep func(Reservation) bool) int {
	var in []Reservation
	for _, r := range rs {
		if r.StartsAt.Before(w.Ends) && w.Begins.Before(r.EndsAt) && keep(r) {
			in = append(in, r)
		}
	}
	at := func(t time.Time) int {
		n := 0
		for _, r := range in {
			if !t.Before(r.StartsAt) && t.Before(r.EndsAt) {
				n += r.GPUs
			}
		}
		return n
	}
	most := at(w.Begins)
	for _, r := range in {
		if r.StartsAt.After(w.Begins) {
			most = max(most, at(r.StartsAt))
		}
	}
	return most
}

// Contract is how far a lead may raise the quota's limit, guarantee and budget: what an
// admin set, never below what is in force.
func (q Quota) Contract() (maxGPUs, guaranteedGPUs int, budgetCardHours int64) {
	return max(q.ContractMaxGPUs, q.MaxGPUs), max(q.ContractGuaranteedGPUs, q.GuaranteedGPUs), max(q.ContractBudgetCardHours, q.BudgetCardHours)
}

// AboveContract says why approving the change c of kind to q needs an admin: the value
// above the contract, as a field error; nil within it.
func AboveContract(kind string, c QuotaChange, q Quota) *FieldError {
	most, guaranteed, budget := q.Contract()
	switch {
	case kind == RequestLimit && c.MaxGPUs > most:
		return Invalid("max_gpus", "%d GPUs at once is above the contract's %d: an admin approves it", c.MaxGPUs, most)
	case kind == RequestOverride && c.OverrideMaxGPUs > most:
		return Invalid("override_max_gpus", "%d GPUs at once is above the contract's %d: an admin approves it", c.OverrideMaxGPUs, most)
	case kind == RequestGuarantee && c.GuaranteedGPUs != nil && *c.GuaranteedGPUs > guaranteed:
		return Invalid("guaranteed_gpus", "a guaranteed share of %d GPUs is above the contract's %d: an admin approves it", *c.GuaranteedGPUs, guaranteed)
	case kind == RequestBudget && q.BudgetCardHours+c.AddCardHours > budget:
		return Invalid("add_card_hours", "a budget of %d card-hours is above the contract's %d: an admin approves it, a lead up to %d more",
			q.BudgetCardHours+c.AddCardHours, budget, budget-q.BudgetCardHours)
	}
	return nil
}

// aboveContract refuses a lead's approval above the contract: a field error that is also
// ErrForbidden, so that the API answers 403 naming the field.
type aboveContract struct{ *FieldError }

func (e aboveContract) Unwrap() []error { return []error{e.FieldError, ErrForbidden} }

// isAdmin reports whether the user id is an admin not disabled, as the database says now.
func isAdmin(tx *gorm.DB, id int64) (bool, error) {
	var u User
	err := tx.Select("role, disabled").Where("id = ?", id).Take(&u).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return false, nil
	}
	return err == nil && u.Role == RoleAdmin && !u.Disabled, err
}
