package models

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"
)

// Quota is a project's contract for one spec ("" = all specs together): how many GPUs it may
// hold at once, how many are guaranteed to it, its monthly card-hour budget, when it starts
// and ends, and whether it may overflow (and at what rate, in fen per card-hour).
type Quota struct {
	ID             int64
	ProjectID      int64
	Spec           string
	MaxGPUs        int `gorm:"column:max_gpus"`
	GuaranteedGPUs int `gorm:"column:guaranteed_gpus"`
	// MaxServiceGPUs caps the GPUs the project's inference services hold at once (of the
	// quota's spec), inside MaxGPUs; 0 leaves them only under MaxGPUs.
	MaxServiceGPUs  int `gorm:"column:max_service_gpus"`
	BudgetCardHours int64
	StartsAt        time.Time
	EndsAt          time.Time
	OverflowAllowed bool
	OverflowRateFen int64
	// A temporary override of MaxGPUs between OverrideBegins and OverrideEnds.
	OverrideMaxGPUs int `gorm:"column:override_max_gpus"`
	OverrideBegins  *time.Time
	OverrideEnds    *time.Time
	// RemindEndDays and RemindBudgetPcts are the quota's own reminders, comma-separated days
	// before its end and percentages of its budget; empty keeps the server's.
	RemindEndDays    string
	RemindBudgetPcts string
	// ContractMaxGPUs, ContractGuaranteedGPUs and ContractBudgetCardHours are how far a lead
	// of the project may raise the limit, the guarantee and the budget (see Contract): an
	// admin sets them with the quota (0 for what the quota itself holds); above them only an
	// admin approves.
	ContractMaxGPUs         int `gorm:"column:contract_max_gpus"`
	ContractGuaranteedGPUs  int `gorm:"column:contract_guaranteed_gpus"`
	ContractBudgetCardHours int64
	UpdatedAt               time.Time
}

// Reminders returns the quota's own reminder days and budget percentages; nil where it
// keeps the server's.
func (q Quota) Reminders() (endDays, budgetPcts []int) {
	endDays, _ = parseInts("remind_end_days", q.RemindEndDays, 1, 366)
	budgetPcts, _ = parseInts("remind_budget_pcts", q.RemindBudgetPcts, 1, 1000)
	return endDays, budgetPcts
}

// parseInts reads up to five comma-separated whole numbers in [lo, hi]; "" is none.
func parseInts(field, s string, lo, hi int) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) > 5 {
		return nil, fieldErr(field, "at most 5 numbers, got %d", len(parts))
	}
	out := make([]int, 0, len(parts))
	for _, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < lo || n > hi {
			return nil, fieldErr(field, "give whole numbers from %d to %d, separated by commas", lo, hi)
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out, nil
}

// JoinInts writes numbers as a quota stores its reminders (see Quota.Reminders).
func JoinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

// Active reports whether the quota is in force at now.
func (q Quota) Active(now time.Time) bool { return !now.Before(q.StartsAt) && now.Before(q.EndsAt) }

// Limit is the concurrent GPU limit at now, the override's while one is in force.
func (q Quota) Limit(now time.Time) int {
	if q.OverrideBegins != nil && q.OverrideEnds != nil && !now.Before(*q.OverrideBegins) && now.Before(*q.OverrideEnds) {
		return q.OverrideMaxGPUs
	}
	return q.MaxGPUs
}

// validate checks a quota's values.
func (q Quota) validate() error { return CheckQuota(q) }

// CheckQuota names every bad field of a quota, as SetQuota refuses it (all but its project),
// storing nothing.
func CheckQuota(q Quota) error {
	var ps Problems
	ps.Add(checkRange("max_gpus", int64(q.MaxGPUs), 1, MaxGPUCount))
	ps.Add(checkRange("budget_card_hours", q.BudgetCardHours, 1, MaxCardHours))
	ps.Add(checkRange("overflow_rate_fen", q.OverflowRateFen, 0, MaxRateFen))
	if q.GuaranteedGPUs < 0 || q.GuaranteedGPUs > q.MaxGPUs {
		ps.Add(fieldErr("guaranteed_gpus", "must be between 0 and the limit %d, got %d", q.MaxGPUs, q.GuaranteedGPUs))
	}
	if q.MaxServiceGPUs < 0 || q.MaxServiceGPUs > q.MaxGPUs {
		ps.Add(fieldErr("max_service_gpus", "must be between 0 (no cap of their own) and the limit %d, got %d", q.MaxGPUs, q.MaxServiceGPUs))
	}
	switch {
	case q.StartsAt.IsZero():
		ps.Add(fieldErr("starts_at", "is required"))
	case !q.EndsAt.After(q.StartsAt):
		ps.Add(fieldErr("ends_at", "must be after the start"))
	}
	if q.ContractMaxGPUs != 0 && (q.ContractMaxGPUs < q.MaxGPUs || q.ContractMaxGPUs > MaxGPUCount) {
		ps.Add(fieldErr("contract_max_gpus", "must be 0 (the limit) or from the limit %d to %d, got %d", q.MaxGPUs, MaxGPUCount, q.ContractMaxGPUs))
	}
	if q.ContractGuaranteedGPUs != 0 && (q.ContractGuaranteedGPUs < q.GuaranteedGPUs || q.ContractGuaranteedGPUs > max(q.ContractMaxGPUs, q.MaxGPUs)) {
		ps.Add(fieldErr("contract_guaranteed_gpus", "must be 0 (the guarantee) or from the guarantee %d to the contract's limit %d, got %d",
			q.GuaranteedGPUs, max(q.ContractMaxGPUs, q.MaxGPUs), q.ContractGuaranteedGPUs))
	}
	if q.ContractBudgetCardHours != 0 && (q.ContractBudgetCardHours < q.BudgetCardHours || q.ContractBudgetCardHours > MaxCardHours) {
		ps.Add(fieldErr("contract_budget_card_hours", "must be 0 (the budget) or from the budget %d to %d, got %d", q.BudgetCardHours, MaxCardHours, q.ContractBudgetCardHours))
	}
	if len(q.Spec) > 100 {
		ps.Add(fieldErr("spec", "is longer than 100 bytes"))
	}
	_, err := parseInts("remind_end_days", q.RemindEndDays, 1, 366)
	ps.Add(err)
	_, err = parseInts("remind_budget_pcts", q.RemindBudgetPcts, 1, 1000)
	ps.Add(err)
	if q.OverrideBegins != nil || q.OverrideEnds != nil {
		switch {
		case q.OverrideBegins == nil || q.OverrideEnds == nil || !q.OverrideEnds.After(*q.OverrideBegins):
			ps.Add(fieldErr("override_ends", "an override needs a begin and a later end"))
		case q.OverrideMaxGPUs < 1 || q.OverrideMaxGPUs > MaxGPUCount:
			ps.Add(checkRange("override_max_gpus", int64(q.OverrideMaxGPUs), 1, MaxGPUCount))
		}
	}
	return ps.Err()
}

// SetQuota creates or replaces a project's quota for a spec, its contract with it (a
// contract value of 0 is the quota's own), recording the change in the audit log with its
// before and after values. A guarantee raised past what the spec's pools can reach, less
// what other projects are guaranteed, is refused.
func (s *Store) SetQuota(ctx context.Context, actor string, q Quota, now time.Time) (Quota, error) {
	if err := q.validate(); err != nil {
		return Quota{}, err
	}
	now = UTC(now)
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := lockProject(tx, q.ProjectID); err != nil {
			if errors.Is(err, ErrNotFound) {
				return fieldErr("project", "unknown project %d", q.ProjectID)
			}
			return err
		}
		var before *Quota
		var cur Quota
		err := forUpdate(tx).Where("project_id = ? AND spec = ?", q.ProjectID, q.Spec).Take(&cur).Error
		switch {
		case err == nil:
			before, q.ID = &cur, cur.ID
		case !errors.Is(err, gorm.ErrRecordNotFound):
			return err
		}
		if err := lockPools(tx); err != nil {
			return err
		}
		cs, err := loadCeilings(tx, now)
		if err != nil {
			return err
		}
		if err := cs.checkGuarantee(q, cur.GuaranteedGPUs); err != nil {
			return err
		}
		q.ContractMaxGPUs, q.ContractGuaranteedGPUs, q.ContractBudgetCardHours = q.Contract()
		q.StartsAt, q.EndsAt, q.UpdatedAt = UTC(q.StartsAt), UTC(q.EndsAt), now
		days, pcts := q.Reminders()
		q.RemindEndDays, q.RemindBudgetPcts = JoinInts(days), JoinInts(pcts)
		if err := tx.Save(&q).Error; err != nil {
			return err
		}
		return audit(tx, now, actor, AuditQuotaChange, &q.ProjectID, fmt.Sprintf("quota %s", specLabel(q.Spec)), before, q)
	})
	if err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			return Quota{}, err
		}
		return Quota{}, fmt.Errorf("models: set quota: %w", err)
	}
	return q, nil
}

func specLabel(spec string) string {
	if spec == "" {
		return "(all specs)"
	}
	return spec
}

// Quotas returns every quota, or a project's when projectID is not 0.
func (s *Store) Quotas(ctx context.Context, projectID int64) ([]Quota, error) {
	q := s.db.WithContext(ctx).Order("project_id, spec")
	if projectID != 0 {
		q = q.Where("project_id = ?", projectID)
	}
	var out []Quota
	if err := q.Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: quotas: %w", err)
	}
	return out, nil
}

func (Quota) TableName() string { return "quotas" }
