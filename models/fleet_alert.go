package models

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Alert kinds.
const (
	AlertBootTimeout     = "boot-timeout"
	AlertScaleFailed     = "scale-failed"
	AlertMachineVanished = "machine-vanished"
	AlertOrphanDeleted   = "orphan-deleted"
	AlertGPUMemory       = "gpu-memory"
	AlertIdleCards       = "idle-cards"
	AlertQuota           = "quota"
	// AlertPoolAtMax: a pool has been at its maximum size with demand waiting longer than
	// its policy allows.
	AlertPoolAtMax = "pool-at-max"
	// AlertPoolFailing: a pool's machines failed to boot as many times in a row as its
	// policy allows, and it creates no machine until an admin resumes it. AlertBootTimeout
	// counts the failures before, one open alert per pool.
	AlertPoolFailing = "pool-failing"
	// AlertServiceTTFT: an inference service's time to first token at p95 is above its
	// target; AlertServiceDown: a replica's metrics page does not answer; AlertServiceIdle: a
	// service held its cards a day without a request, a candidate to release.
	AlertServiceTTFT = "service-ttft"
	AlertServiceDown = "service-down"
	AlertServiceIdle = "service-idle"
)

// Alert severities, worst first.
const (
	SeverityCritical = "critical"
	SeverityWarning  = "warning"
	SeverityInfo     = "info"
)

// Alert is something an admin should know: shown in the UI and sent to the chat channels.
// There is at most one open alert per kind and subject; raising it again counts.
type Alert struct {
	ID      int64
	Kind    string
	Subject string
	// Message is the text of alerts raised before they had a code; "" since.
	Message string
	// Code and Params are the alert's sentence, which pages and chat render through the
	// catalogs (Params is a JSON array of strings; AlertParams decodes it).
	Code     string
	Params   string
	Severity string
	// TaskID, NodeID and Pool are what the alert is about (0, "": none), so that the page
	// groups alerts by task or node and links to them.
	TaskID int64
	NodeID int64
	Pool   string
	// AckedBy and AckedAt say who acknowledged the alert and when; "" and nil until then.
	AckedBy string
	AckedAt *time.Time
	// At is when it was first raised, LastAt when last; Count how many times.
	At         time.Time
	LastAt     time.Time
	Count      int
	ResolvedAt *time.Time
	// SentAt is when the channels were told; nil until they are.
	SentAt *time.Time
}

// AlertInput is an alert to raise: its kind and subject (one open alert per pair), its
// sentence as a catalog code with parameters, its severity (warning when empty), and what it
// is about.
type AlertInput struct {
	Kind     string
	Subject  string
	Code     string
	Params   []string
	Severity string
	TaskID   int64
	NodeID   int64
	Pool     string
}

// RaiseAlert opens an alert, or counts it again (with the new sentence) when one of its kind
// and subject is open. It reports whether the alert is new.
func (s *Store) RaiseAlert(ctx context.Context, in AlertInput, now time.Time) (Alert, bool, error) {
	var (
		a       Alert
		created bool
	)
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) (err error) {
		a, created, err = raiseAlert(tx, in, now)
		return err
	})
	return a, created, err
}

// raiseAlert is RaiseAlert inside the transaction tx. It counts on the open alert with one
// statement, or opens one with an insert that does nothing when a raise in another transaction
// opened it meanwhile (the partial unique index idx_alerts_one_open), and then counts on that:
// raises at once, from requests as well as the loops, make one alert on SQLite and Postgres.
func raiseAlert(tx *gorm.DB, in AlertInput, now time.Time) (Alert, bool, error) {
	now = UTC(now)
	kind, subject := truncate(in.Kind, 50), truncate(in.Subject, 200)
	params := []byte("[]")
	if b, err := json.Marshal(in.Params); err == nil && len(in.Params) > 0 && len(b) <= 2000 {
		params = b
	}
	sev := in.Severity
	if sev == "" {
		sev = SeverityWarning
	}
	a := Alert{Kind: kind, Subject: subject, Code: truncate(in.Code, 80), Params: string(params), Severity: sev,
		TaskID: in.TaskID, NodeID: in.NodeID, Pool: truncate(in.Pool, 100), At: now, LastAt: now, Count: 1}
	open := func(q *gorm.DB) *gorm.DB {
		return q.Where("kind = ? AND subject = ? AND resolved_at IS NULL", kind, subject)
	}
	count := func() (bool, error) {
		res := open(tx.Model(&Alert{})).Updates(map[string]any{"code": a.Code, "params": a.Params, "severity": sev,
			"last_at": now, "count": gorm.Expr("count + 1")})
		return res.RowsAffected > 0, res.Error
	}
	counted, err := count()
	created := false
	if err == nil && !counted {
		ins := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "kind"}, {Name: "subject"}},
			TargetWhere: clause.Where{Exprs: []clause.Expression{clause.Expr{SQL: "resolved_at IS NULL"}}}, DoNothing: true}).Create(&a)
		err, created = ins.Error, ins.RowsAffected == 1
		if err == nil && !created {
			_, err = count()
		}
	}
	if err == nil && !created {
		a = Alert{}
		err = open(tx).Take(&a).Error
	}
	if err != nil {
		return Alert{}, false, fmt.Errorf("models: raise alert %s %s: %w", kind, subject, err)
	}
	return a, created, nil
}

// AlertParams decodes an alert's parameters; none when they do not decode.
func (a Alert) AlertParams() []string {
	var p []string
	if json.Unmarshal([]byte(a.Params), &p) != nil {
		return nil
	}
	return p
}

// AckAlerts records that by acknowledged the open, unacknowledged alerts among ids, and
// returns how many it marked. Acknowledging twice keeps the first.
func (s *Store) AckAlerts(ctx context.Context, ids []int64, by string, now time.Time) (int, error) {
	if len(ids) == 0 {
		return 0, nil
	}
	res := s.db.WithContext(ctx).Model(&Alert{}).Where("id IN ? AND acked_at IS NULL AND resolved_at IS NULL", ids).
		Updates(map[string]any{"acked_by": truncate(by, 100), "acked_at": UTC(now)})
	if res.Error != nil {
		return 0, fmt.Errorf("models: acknowledge alerts: %w", res.Error)
	}
	return int(res.RowsAffected), nil
}

// ResolveAlert closes the open alert of kind about subject, if any.
func (s *Store) ResolveAlert(ctx context.Context, kind, subject string, now time.Time) error {
	return resolveAlert(s.db.WithContext(ctx), kind, subject, now)
}

// resolveAlert is ResolveAlert on db, which may be a transaction.
func resolveAlert(db *gorm.DB, kind, subject string, now time.Time) error {
	err := db.Model(&Alert{}).Where("kind = ? AND subject = ? AND resolved_at IS NULL", kind, subject).
		Update("resolved_at", UTC(now)).Error
	if err != nil {
		return fmt.Errorf("models: resolve alert %s %s: %w", kind, subject, err)
	}
	return nil
}

// AlertFilter narrows Alerts: OpenOnly keeps unresolved ones, UnsentOnly those the channels
// were not told of; Limit > 0 caps the count.
type AlertFilter struct {
	OpenOnly   bool
	UnsentOnly bool
	Limit      int
}

// Alerts returns alerts, newest first (by LastAt).
func (s *Store) Alerts(ctx context.Context, f AlertFilter) ([]Alert, error) {
	q := s.db.WithContext(ctx).Order("last_at DESC, id DESC")
	if f.OpenOnly {
		q = q.Where("resolved_at IS NULL")
	}
	if f.UnsentOnly {
		q = q.Where("sent_at IS NULL")
	}
	if f.Limit > 0 {
		q = q.Limit(f.Limit)
	}
	var out []Alert
	if err := q.Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: alerts: %w", err)
	}
	return out, nil
}

// MarkAlertSent records that the channels were told of alert id.
func (s *Store) MarkAlertSent(ctx context.Context, id int64, now time.Time) error {
	if err := s.db.WithContext(ctx).Model(&Alert{}).Where("id = ?", id).Update("sent_at", UTC(now)).Error; err != nil {
		return fmt.Errorf("models: alert %d sent: %w", id, err)
	}
	return nil
}
