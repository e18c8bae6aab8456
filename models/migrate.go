package models

import (
	"context"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// migration is one versioned schema step. Each step uses its own frozen structs, never the
// live entities, so later changes to an entity cannot rewrite history.
type migration struct {
	version int
	name    string
	up      func(tx *gorm.DB) error
}

// migrations is the ordered schema history. Append only.
var migrations = []migration{
	{1, "initial schema: pools, nodes, gpus, samples, rollups, projects, tasks, allocations", migrateV1},
	{2, "people, roles, sessions, API tokens, quotas, quota requests, notifications, audit log", migrateV2},
	{3, "billing settings, prices, issued bills and adjustments", migrateV3},
	{4, "pool policies and their versions, machines, scaling events, alerts", migrateV4},
	{5, "security: idempotency keys scoped to caller and project, single-use join tokens", migrateV5},
	{6, "agent: task image, output unit and last checkpoint, unmanaged GPU use, task log tails", migrateV6Agent},
	{7, "metering thresholds in the billing settings, and on each rollup", migrateV7Thresholds},
	{8, "promises: node exits of multi-node tasks, projects' idle-reclaim overrides, pools at their maximum since", migrateV8Promises},
	{9, "task templates with their versions, the template of each task, schedules and their runs", migrateV9Templates},
	{11, "unmanaged GPU use metered: ended spans per GPU, the last reading walked", migrateV11Unmanaged},
	{12, "cloud orders not yet done, pools' region and zone, list prices per machine-hour and the cost of scale-ups", migrateV12Ctyun},
	{13, "projects archived, quotas' own reminders", migrateV13Admin},
	{14, "board over time: temperature and power in rollups; alerts with code, params, severity, subject ids and acknowledgement", migrateV14Board},
	{15, "the specs and regions a task accepts", migrateV15Places},
	{18, "an index of the rollups' counts that the ledger reads", migrateV18LedgerIndex},
	{19, "advance reservations: cards of a spec booked for a project over a window", migrateV19Reservations},
	{20, "an index of the open allocations by node, read by every agent poll", migrateV20NodeOpen},
	{21, "the weekly reports sent, one row per week", migrateV21WeeklyReports},
	{22, "where a task's data is in each region", migrateV22DataLocations},
	{24, "inference services: tasks of kind service with their model, replicas and metrics endpoint; services' 5-minute rollups", migrateV24Services},
	{25, "a quota's cap on the GPUs its project's services hold", migrateV25ServiceQuota},
	{26, "a reservation's region: its cards held in one region", migrateV26ReservationRegion},
	{28, "an index of the allocations by GPU and start that the ledger reads", migrateV28LedgerAllocations},
	{29, "a service's health path, probed by its node", migrateV29HealthPath},
	{30, "the 5-minute buckets in which services served, kept past their rollups for bills", migrateV30ServiceServed},
	{31, "why Kashi suspended a schedule (its owner left the project or was disabled)", migrateV31ScheduleWhy},
	{32, "when a task's data check last answered", migrateV32DataChecked},
	{33, "the earlier version a template version restores", migrateV33TemplateRollback},
	{34, "pools' machines that failed to boot in a row, and since when a pool stopped creating machines", migrateV34BootFailures},
	{35, "a machine id belongs to one node; join tokens bound to a node", migrateV35NodeIdentity},
	{36, "the Unix account each user's tasks run as on the nodes", migrateV36UnixAccount},
	{37, "quotas' contracts (how far a lead may raise the limit, guarantee and budget); pools saved before the unused-booking rule state its 0 %", migrateV37Contracts},
	{43, "reruns from the last checkpoint: a task's attempts, each allocation's, and the attempts rerun", migrateV43Reruns},
	{44, "a task's least network between nodes and storage throughput, and whether it may run across nodes without a network", migrateV44Attributes},
	{45, "trials: a task run at small sizes on a few specs before its full run; each run's trial, and the ledger's trial class", migrateV45Trials},
	{46, "pipelines by stage: a named DAG of stages, each submitting a task once its parents are done", migrateV46Pipelines},
	{48, "pipeline templates' schedules: the pipeline each run submitted", migrateV48PipelineSchedules},
	{49, "the archive's outbox: objects to write to S3-compatible storage, their attempts and when they arrived", migrateV49Archive},
	{50, "sign-in through the organisation's directory (OIDC, LDAP): users' source, sessions' method, group mapping rules, sign-ins under way", migrateV50SSO},
	{52, "each user's ids in the team's chats, for the robots to mention them", migrateV52ChatIDs},
	{56, "what wakes the agents waiting for their assignments: a counter of assignment changes and each node's last", migrateV56AssignmentChanges},
	{58, "sign-in through the team chats (DingTalk, Feishu, WeCom) and the OIDC provider's check: each sign-in's method, OIDC users' refresh tokens", migrateV58ChatSignIn},
	{59, "room in the GPUs' pages on Postgres for the readings' updates to stay on the page (fillfactor 50)", migrateV59GPUFillfactor},
	{60, "the index of the tasks' service holds the service replicas alone", migrateV60ServiceReplicasIndex},
	{61, "an index of the closed allocations by their end, which the quotas' use reads", migrateV61AllocationsEnded},
	{62, "an index of the tasks by their submit time, which the scheduler's weekly read of ended tasks takes", migrateV62TasksSubmitted},
}

// schemaVersion records each applied migration.
type schemaVersion struct {
	Version   int `gorm:"primaryKey;autoIncrement:false"`
	Name      string
	AppliedAt time.Time
}

func (schemaVersion) TableName() string { return "schema_version" }

// migrate applies the missing migrations in order, one transaction per step.
func (s *Store) migrate(ctx context.Context) error {
	db := s.db.WithContext(ctx)
	if err := db.Migrator().AutoMigrate(&schemaVersion{}); err != nil {
		return fmt.Errorf("models: schema_version: %w", err)
	}
	var applied []int
	if err := db.Model(&schemaVersion{}).Pluck("version", &applied).Error; err != nil {
		return fmt.Errorf("models: read schema_version: %w", err)
	}
	done := make(map[int]bool, len(applied))
	for _, v := range applied {
		done[v] = true
	}
	for _, m := range migrations {
		if done[m.version] {
			continue
		}
		err := db.Transaction(func(tx *gorm.DB) error {
			if err := m.up(tx); err != nil {
				return err
			}
			return tx.Create(&schemaVersion{Version: m.version, Name: m.name, AppliedAt: UTC(s.now())}).Error
		})
		if err != nil {
			return fmt.Errorf("models: migration %d (%s): %w", m.version, m.name, err)
		}
	}
	return nil
}

// SchemaVersion returns the highest applied migration.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	err := s.db.WithContext(ctx).Model(&schemaVersion{}).Select("COALESCE(MAX(version), 0)").Scan(&v).Error
	return v, err
}
