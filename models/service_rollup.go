package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"kashi/serving"
)

// ServiceRollup is what one service's replicas served in one 5-minute bucket (Bucket, Unix
// seconds of its start): requests and tokens added up, histograms added bucket by bucket
// (exact; Narrowed when replicas' bounds differed and only the shared ones were kept).
type ServiceRollup struct {
	ID               int64
	ServiceID        int64
	Bucket           int64
	Server           string
	Model            string
	Requests         float64
	PromptTokens     float64
	GenerationTokens float64
	// TTFT and E2E are JSON of serving.Histogram; empty when the server exposes none.
	TTFT     string `gorm:"column:ttft"`
	E2E      string `gorm:"column:e2e"`
	Restarts int
	Narrowed bool
}

// ServiceReport is one scrape of a service replica's metrics page as its node sent it: the
// difference from the previous scrape, or Error when the page could not be read.
type ServiceReport struct {
	TaskID    int64
	TS        time.Time
	Error     string
	Restarted bool
	// Served is what the replica's model server counted since the previous scrape.
	Served serving.Snapshot
}

// maxScrapeError bounds the stored scrape error.
const maxScrapeError = 200

// AddServiceReports stores a node's scrapes of its service replicas: each one's answer (or
// error) on the replica's task, and its counts added into its service's 5-minute rollup. A
// report is added once: only one later than the replica's last stored (ScrapedAt) counts, so
// a batch the agent sends again changes nothing. Reports of tasks that are not services on
// this node, or outside the window samples are taken in, are skipped.
func (s *Store) AddServiceReports(ctx context.Context, nodeID int64, reports []ServiceReport, now time.Time) error {
	now = UTC(now)
	for _, r := range reports {
		if r.TS.After(now.Add(MaxFutureSkew)) || r.TS.Before(now.Add(-MaxReportAge)) {
			continue
		}
		if err := s.addServiceReport(ctx, nodeID, r); err != nil {
			return fmt.Errorf("models: service report of task %d: %w", r.TaskID, err)
		}
	}
	return nil
}

func (s *Store) addServiceReport(ctx context.Context, nodeID int64, r ServiceReport) error {
	ts := UTC(r.TS)
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var t Task
		err := tx.Select("id", "service_id").
			Where("id = ? AND kind = ? AND node_id = ? AND service_id IS NOT NULL", r.TaskID, TaskKindService, nodeID).Take(&t).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil
		} else if err != nil {
			return err
		}
		// The conditional update is the idempotence: a report no later than the last stored
		// one updates nothing and is not added.
		res := tx.Model(&Task{}).Where("id = ? AND (scraped_at IS NULL OR scraped_at < ?)", t.ID, ts).
			Updates(map[string]any{"scraped_at": ts, "scrape_error": truncate(r.Error, maxScrapeError)})
		if res.Error != nil || res.RowsAffected == 0 || r.Error != "" {
			return res.Error
		}
		return addToRollup(tx, *t.ServiceID, ts.Unix()-ts.Unix()%Rollup5m, r)
	})
}

// addToRollup adds one replica's counts into its service's bucket, creating the bucket when
// it is the first; the row is locked between reading and writing.
func addToRollup(tx *gorm.DB, serviceID, bucket int64, r ServiceReport) error {
	fresh := ServiceRollup{ServiceID: serviceID, Bucket: bucket, Server: string(r.Served.Server), Model: r.Served.Model}
	if err := tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&fresh).Error; err != nil {
		return err
	}
	var row ServiceRollup
	if err := forUpdate(tx).Where("service_id = ? AND bucket = ?", serviceID, bucket).Take(&row).Error; err != nil {
		return err
	}
	stored, err := row.Served()
	if err != nil {
		return err
	}
	m := serving.Merge(stored, r.Served)
	if row.Server == "" {
		row.Server, row.Model = string(r.Served.Server), r.Served.Model
	}
	row.Requests, row.PromptTokens, row.GenerationTokens = m.Requests, m.PromptTokens, m.GenerationTokens
	if row.TTFT, err = histogramText(m.TTFT); err != nil {
		return err
	}
	if row.E2E, err = histogramText(m.E2E); err != nil {
		return err
	}
	if r.Restarted {
		row.Restarts++
	}
	row.Narrowed = row.Narrowed || m.TTFT != nil && m.TTFT.Narrowed || m.E2E != nil && m.E2E.Narrowed
	return tx.Save(&row).Error
}

// Served is the rollup's counts as a serving.Snapshot, to merge or read percentiles from.
func (r ServiceRollup) Served() (serving.Snapshot, error) {
	out := serving.Snapshot{Server: serving.Server(r.Server), Model: r.Model, Requests: r.Requests,
		PromptTokens: r.PromptTokens, GenerationTokens: r.GenerationTokens}
	for _, h := range []struct {
		text string
		into **serving.Histogram
	}{{r.TTFT, &out.TTFT}, {r.E2E, &out.E2E}} {
		if h.text == "" {
			continue
		}
		*h.into = new(serving.Histogram)
		if err := json.Unmarshal([]byte(h.text), *h.into); err != nil {
			return serving.Snapshot{}, fmt.Errorf("rollup %d of service %d: %w", r.Bucket, r.ServiceID, err)
		}
	}
	return out, nil
}

func histogramText(h *serving.Histogram) (string, error) {
	if h == nil {
		return "", nil
	}
	b, err := json.Marshal(h)
	return string(b), err
}

// ServiceRollups returns the 5-minute rollups of the services named (all when none) with
// buckets in [from, to), by service and bucket.
func (s *Store) ServiceRollups(ctx context.Context, serviceIDs []int64, from, to time.Time) ([]ServiceRollup, error) {
	q := s.db.WithContext(ctx).Where("bucket >= ? AND bucket < ?", from.Unix(), to.Unix())
	if len(serviceIDs) > 0 {
		q = q.Where("service_id IN ?", serviceIDs)
	}
	var out []ServiceRollup
	if err := q.Order("service_id, bucket").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: service rollups: %w", err)
	}
	return out, nil
}

// ServiceRollupKeep is how long services' 5-minute rollups are kept: three times the
// longest range the Models page shows (30 days), a day's alerts and more. Bills class a
// service's card time by the buckets in which it served (ServiceServing): when a rollup is
// pruned, whether it served is kept (service_served), so pruning changes no bill.
const ServiceRollupKeep = 92 * 24 * time.Hour

// pruneServiceRollupsStep is how many buckets' seconds one prune transaction deletes, a day.
const pruneServiceRollupsStep = 24 * 3600

// pruneServiceRollups deletes services' rollups of buckets that began before cutoff (Unix
// seconds), a day of buckets at a time, keeping in the same transaction the buckets in
// which the services served.
func (s *Store) pruneServiceRollups(ctx context.Context, cutoff int64) error {
	db := s.db.WithContext(ctx)
	for {
		var lo *int64
		if err := db.Raw(`SELECT MIN(bucket) FROM service_rollups`).Scan(&lo).Error; err != nil {
			return err
		}
		if lo == nil || *lo >= cutoff {
			return nil
		}
		before := min(*lo+pruneServiceRollupsStep, cutoff)
		err := db.Transaction(func(tx *gorm.DB) error {
			err := tx.Exec(`INSERT INTO service_served (service_id, bucket) SELECT service_id, bucket FROM service_rollups
				WHERE bucket < ? AND `+servedSQL+` ON CONFLICT DO NOTHING`, before).Error
			if err != nil {
				return err
			}
			return tx.Where("bucket < ?", before).Delete(&ServiceRollup{}).Error
		})
		if err != nil {
			return err
		}
	}
}
