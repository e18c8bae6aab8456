package models

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
)

// IssueBill freezes a computed bill: b carries the project, the month, its period in UTC,
// the encoded body and its SHA-256. The month must have ended by now (else a FieldError on
// "month"); a month already issued for the project, or whose adjustments changed since the
// bill was computed, is ErrConflict. Nothing changes on error.
func (s *Store) IssueBill(ctx context.Context, b IssuedBill, now time.Time) (IssuedBill, error) {
	now = UTC(now)
	if err := checkMonth("month", b.Month); err != nil {
		return IssuedBill{}, err
	}
	if !b.PeriodEnd.After(b.PeriodStart) {
		return IssuedBill{}, fieldErr("month", "period %s … %s is empty", b.PeriodStart, b.PeriodEnd)
	}
	if b.PeriodEnd.After(now) {
		return IssuedBill{}, fieldErr("month", "%s has not ended yet; a month is issued after it ends", b.Month)
	}
	if err := checkName("issued_by", b.IssuedBy, 100); err != nil {
		return IssuedBill{}, err
	}
	sum := sha256.Sum256([]byte(b.Body))
	if b.Body == "" || hex.EncodeToString(sum[:]) != b.SHA256 {
		return IssuedBill{}, fieldErr("body", "checksum does not match the body")
	}
	row := b
	row.ID, row.IssuedAt = 0, now
	row.PeriodStart, row.PeriodEnd = UTC(b.PeriodStart), UTC(b.PeriodEnd)
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var p Project
		if err := forUpdate(tx).Where("id = ?", b.ProjectID).Take(&p).Error; err != nil {
			return notFound(fmt.Sprintf("project %d", b.ProjectID), err)
		}
		var n int64
		if err := tx.Model(&IssuedBill{}).Where("project_id = ? AND month = ?", b.ProjectID, b.Month).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return fmt.Errorf("models: %s of project %q is already issued: %w", b.Month, p.Name, ErrConflict)
		}
		var ids []int64
		if err := tx.Model(&Adjustment{}).Where("project_id = ? AND month = ?", b.ProjectID, b.Month).Order("id").Pluck("id", &ids).Error; err != nil {
			return err
		}
		want := slices.Sorted(slices.Values(b.AdjustmentIDs))
		if !slices.Equal(ids, want) {
			return fmt.Errorf("models: adjustments of %s changed since the bill was computed: %w", b.Month, ErrConflict)
		}
		if err := tx.Create(&row).Error; err != nil {
			if isUniqueViolation(err) {
				return fmt.Errorf("models: %s of project %q is already issued: %w", b.Month, p.Name, ErrConflict)
			}
			return err
		}
		return nil
	})
	if err != nil {
		var fe *FieldError
		if errors.As(err, &fe) || errors.Is(err, ErrConflict) || errors.Is(err, ErrNotFound) {
			return IssuedBill{}, err
		}
		return IssuedBill{}, fmt.Errorf("models: issue %s of project %d: %w", b.Month, b.ProjectID, err)
	}
	return row, nil
}

// IssuedBillOf returns a project's issued bill of month, or ErrNotFound.
func (s *Store) IssuedBillOf(ctx context.Context, projectID int64, month string) (IssuedBill, error) {
	var b IssuedBill
	err := s.db.WithContext(ctx).Where("project_id = ? AND month = ?", projectID, month).Take(&b).Error
	if err != nil {
		return b, notFound(fmt.Sprintf("issued bill %s of project %d", month, projectID), err)
	}
	return b, nil
}

// IssuedBills returns the bills issued for month, by project id.
func (s *Store) IssuedBills(ctx context.Context, month string) ([]IssuedBill, error) {
	if err := checkMonth("month", month); err != nil {
		return nil, err
	}
	var out []IssuedBill
	if err := s.db.WithContext(ctx).Where("month = ?", month).Order("project_id").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: issued bills of %s: %w", month, err)
	}
	return out, nil
}

// AddAdjustment records a correction that lands on a.Month's bill of a.ProjectID. The amount
// is signed fen and not zero, the reason is required, CorrectsMonth (optional) is earlier
// than Month. When Month is already issued it is ErrConflict: corrections go on a later
// month's bill, never into a frozen one.
func (s *Store) AddAdjustment(ctx context.Context, a Adjustment, now time.Time) (Adjustment, error) {
	if err := CheckAdjustment(a); err != nil {
		return Adjustment{}, err
	}
	row := a
	row.ID, row.CreatedAt = 0, UTC(now)
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := checkProject(tx, "project_id", a.ProjectID, false); err != nil {
			return err
		}
		// Locked so that a bill being issued meanwhile sees this adjustment or refuses it.
		if err := lockProject(tx, a.ProjectID); err != nil {
			return err
		}
		var n int64
		if err := tx.Model(&IssuedBill{}).Where("project_id = ? AND month = ?", a.ProjectID, a.Month).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return fmt.Errorf("models: %s is issued; add the correction to a later month: %w", a.Month, ErrConflict)
		}
		return tx.Create(&row).Error
	})
	if err != nil {
		var fe *FieldError
		if errors.As(err, &fe) || errors.Is(err, ErrConflict) {
			return Adjustment{}, err
		}
		return Adjustment{}, fmt.Errorf("models: add adjustment: %w", err)
	}
	return row, nil
}

// CheckAdjustment names every bad field of an adjustment, as AddAdjustment refuses it (all
// but its project and an issued month), storing nothing.
func CheckAdjustment(a Adjustment) error {
	var ps Problems
	ps.Add(checkMonth("month", a.Month))
	if a.AmountFen == 0 {
		ps.Add(fieldErr("amount_fen", "must not be zero"))
	}
	ps.Add(checkRange("amount_fen", a.AmountFen, -MaxAmountFen, MaxAmountFen))
	ps.Add(checkName("reason", a.Reason, 500))
	ps.Add(checkName("created_by", a.CreatedBy, 100))
	if a.CorrectsMonth != "" {
		ps.Add(checkMonth("corrects_month", a.CorrectsMonth))
		if !ps.Has("corrects_month") && !ps.Has("month") && a.CorrectsMonth >= a.Month {
			ps.Add(fieldErr("corrects_month", "must be before %s", a.Month))
		}
	}
	return ps.Err()
}

// Adjustments returns the adjustments landing on month, of one project (or all when
// projectID is 0), oldest first.
func (s *Store) Adjustments(ctx context.Context, projectID int64, month string) ([]Adjustment, error) {
	if err := checkMonth("month", month); err != nil {
		return nil, err
	}
	q := s.db.WithContext(ctx).Where("month = ?", month)
	if projectID != 0 {
		q = q.Where("project_id = ?", projectID)
	}
	var out []Adjustment
	if err := q.Order("id").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: adjustments of %s: %w", month, err)
	}
	return out, nil
}

// isUniqueViolation reports a unique-index violation on SQLite or Postgres; false for nil.
func isUniqueViolation(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "UNIQUE constraint failed") || strings.Contains(msg, "duplicate key value") ||
		strings.Contains(msg, "SQLSTATE 23505")
}
