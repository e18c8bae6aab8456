package models

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// SetPrice stores the rate of a spec from p.FromMonth on, for project p.ProjectID (0: the
// default list), replacing a row with the same project, spec and month. A negative rate, a
// bad month or an unknown project is a FieldError and nothing changes.
func (s *Store) SetPrice(ctx context.Context, p Price, now time.Time) error {
	var ps Problems
	ps.Add(CheckPrice(p))
	db := s.db.WithContext(ctx)
	if err := ps.Add(checkProject(db, "project_id", p.ProjectID, true)); err != nil {
		return err
	}
	if err := ps.Err(); err != nil {
		return err
	}
	row := Price{ProjectID: p.ProjectID, Spec: p.Spec, FromMonth: p.FromMonth, RateFen: p.RateFen,
		OverflowRateFen: p.OverflowRateFen, UpdatedAt: UTC(now)}
	err := db.Clauses(clause.OnConflict{
		Columns:   []clause.Column{{Name: "project_id"}, {Name: "spec"}, {Name: "from_month"}},
		DoUpdates: clause.AssignmentColumns([]string{"rate_fen", "overflow_rate_fen", "updated_at"}),
	}).Create(&row).Error
	if err != nil {
		return fmt.Errorf("models: set price of %s: %w", p.Spec, err)
	}
	return nil
}

// CheckPrice names every bad field of a price, as SetPrice refuses it (all but its project),
// storing nothing: a form checks what it could read when another of its fields is unreadable.
func CheckPrice(p Price) error {
	var ps Problems
	ps.Add(checkName("spec", p.Spec, 100))
	ps.Add(checkMonth("from_month", p.FromMonth))
	ps.Add(checkRange("rate_fen", p.RateFen, 0, MaxRateFen))
	ps.Add(checkRange("overflow_rate_fen", p.OverflowRateFen, 0, MaxRateFen))
	return ps.Err()
}

// Prices returns the prices in force in month: per project (0: default) and spec, the row
// with the latest FromMonth not after month.
func (s *Store) Prices(ctx context.Context, month string) ([]Price, error) {
	if err := checkMonth("month", month); err != nil {
		return nil, err
	}
	var rows []Price
	err := s.db.WithContext(ctx).Where("from_month <= ?", month).Order("project_id, spec, from_month").Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("models: prices of %s: %w", month, err)
	}
	// Rows come ordered, so the last of each (project, spec) run is the one in force.
	out := rows[:0]
	for i, r := range rows {
		if i+1 < len(rows) && rows[i+1].ProjectID == r.ProjectID && rows[i+1].Spec == r.Spec {
			continue
		}
		out = append(out, r)
	}
	return out, nil
}

// SetBillingPlan stores how a project is billed from p.FromMonth on, replacing a plan of the
// same month. A negative fee or price, a package without cards or spec, bad size classes or
// an unknown mode is a FieldError and nothing changes.
func (s *Store) SetBillingPlan(ctx context.Context, p BillingPlan, now time.Time) error {
	var ps Problems
	ps.Add(CheckPlan(p))
	db := s.db.WithContext(ctx)
	if err := ps.Add(checkProject(db, "project_id", p.ProjectID, false)); err != nil {
		return err
	}
	if err := ps.Err(); err != nil {
		return err
	}
	row := BillingPlan{ProjectID: p.ProjectID, FromMonth: p.FromMonth, Mode: p.Mode, PackageSpec: p.PackageSpec,
		PackageCards: p.PackageCards, PackageFeeFen: p.PackageFeeFen, UnitPriceFen: p.UnitPriceFen,
		SizeClasses: p.SizeClasses, UpdatedAt: UTC(now)}
	err := db.Clauses(clause.OnConflict{
		Columns: []clause.Column{{Name: "project_id"}, {Name: "from_month"}},
		DoUpdates: clause.AssignmentColumns([]string{"mode", "package_spec", "package_cards", "package_fee_fen",
			"unit_price_fen", "size_classes", "updated_at"}),
	}).Create(&row).Error
	if err != nil {
		return fmt.Errorf("models: set billing plan of project %d: %w", p.ProjectID, err)
	}
	return nil
}

// CheckPlan names every bad field of a plan, as SetBillingPlan refuses it (all but its
// project), storing nothing: its month, its mode, and the fields its mode uses.
func CheckPlan(p BillingPlan) error {
	var ps Problems
	ps.Add(checkMonth("from_month", p.FromMonth))
	ps.Add(checkRange("package_fee_fen", p.PackageFeeFen, 0, MaxAmountFen))
	ps.Add(checkRange("package_cards", int64(p.PackageCards), 0, MaxGPUCount))
	ps.Add(checkRange("unit_price_fen", p.UnitPriceFen, 0, MaxRateFen))
	switch p.Mode {
	case BillPayAsYouGo:
	case BillReserved:
		ps.Add(checkName("package_spec", p.PackageSpec, 100))
		if p.PackageCards == 0 {
			ps.Add(fieldErr("package_cards", "a package holds at least one card"))
		}
	case BillPerTask:
		_, err := ParseSizeClasses(p.SizeClasses)
		ps.Add(err)
	default:
		ps.Add(fieldErr("mode", "must be %q, %q or %q", BillPayAsYouGo, BillReserved, BillPerTask))
	}
	return ps.Err()
}

// ParseSizeClasses decodes a plan's size classes: each price not negative, limits rising,
// only the last one unlimited (0). Empty text is no classes.
func ParseSizeClasses(text string) ([]SizeClass, error) {
	if text == "" {
		return nil, nil
	}
	var cs []SizeClass
	if err := json.Unmarshal([]byte(text), &cs); err != nil {
		return nil, fieldErr("size_classes", "must be a JSON list of {name, max_card_hours, price_fen}")
	}
	for i, c := range cs {
		f := fmt.Sprintf("size_classes[%d]", i)
		switch {
		case c.PriceFen < 0 || c.PriceFen > MaxAmountFen:
			return nil, checkRange(f+".price_fen", c.PriceFen, 0, MaxAmountFen)
		case c.MaxCardHours < 0 || c.MaxCardHours > MaxCardHours:
			return nil, checkRange(f+".max_card_hours", c.MaxCardHours, 0, MaxCardHours)
		case c.MaxCardHours == 0 && i != len(cs)-1:
			return nil, fieldErr(f+".max_card_hours", "only the last class may be unlimited (0)")
		case i > 0 && c.MaxCardHours != 0 && c.MaxCardHours <= cs[i-1].MaxCardHours:
			return nil, fieldErr(f+".max_card_hours", "must be larger than the class before")
		}
	}
	return cs, nil
}

// BillingPlans returns the plan in force in month for every project that has one.
func (s *Store) BillingPlans(ctx context.Context, month string) ([]BillingPlan, error) {
	if err := checkMonth("month", month); err != nil {
		return nil, err
	}
	var rows []BillingPlan
	err := s.db.WithContext(ctx).Where("from_month <= ?", month).Order("project_id, from_month").Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("models: billing plans of %s: %w", month, err)
	}
	out := rows[:0]
	for i, r := range rows {
		if i+1 < len(rows) && rows[i+1].ProjectID == r.ProjectID {
			continue
		}
		out = append(out, r)
	}
	return out, nil
}

// checkProject is a FieldError unless project id exists (or is 0 and zeroOK).
func checkProject(db *gorm.DB, field string, id int64, zeroOK bool) error {
	if id == 0 && zeroOK {
		return nil
	}
	var n int64
	if err := db.Model(&Project{}).Where("id = ?", id).Count(&n).Error; err != nil {
		return fmt.Errorf("models: project %d: %w", id, err)
	}
	if n == 0 {
		return fieldErr(field, "no project %d", id)
	}
	return nil
}
