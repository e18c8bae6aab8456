package models

import (
	"encoding/json"
	"fmt"

	"gorm.io/gorm"
)

// submitReads is what the checks of one transaction's submits read from the database, each
// read at most once in it: a group of submits (task_commit.go), a pipeline's stages or a
// trial's runs read the project, its quotas and the pools' settings once, not once a task.
// Nothing a submit writes (tasks, their events) changes what it holds, so within the
// transaction each check still reads what the write commits beside.
type submitReads struct {
	tx       *gorm.DB
	projects map[string]Project
	quotas   map[int64][]Quota
	pools    []poolSetting
	read     bool // pools read
	specs    []string
	listed   bool // specs read
}

// poolSetting is one pool, its spec and its configuration decoded, if it has one.
type poolSetting struct {
	name, spec string
	configured bool
	cfg        PoolConfig
	err        error // of decoding the configuration
}

// newSubmitReads starts the reads of submits checked in tx.
func newSubmitReads(tx *gorm.DB) *submitReads {
	return &submitReads{tx: tx, projects: map[string]Project{}, quotas: map[int64][]Quota{}}
}

// project is the project nt names, in use (projectToSubmit); a bad one is read again each
// time, so each submit gets its own error.
func (r *submitReads) project(nt NewTask) (Project, error) {
	if p, ok := r.projects[nt.Project]; ok {
		return p, nil
	}
	p, err := projectToSubmit(r.tx, nt)
	if err == nil {
		r.projects[nt.Project] = p
	}
	return p, err
}

// projectQuotas is the project's quotas.
func (r *submitReads) projectQuotas(projectID int64) ([]Quota, error) {
	if q, ok := r.quotas[projectID]; ok {
		return q, nil
	}
	var quotas []Quota
	if err := r.tx.Where("project_id = ?", projectID).Find(&quotas).Error; err != nil {
		return nil, err
	}
	r.quotas[projectID] = quotas
	return quotas, nil
}

// poolSettings is every pool with its configuration, by name.
func (r *submitReads) poolSettings() ([]poolSetting, error) {
	if r.read {
		return r.pools, nil
	}
	var rows []struct {
		Name, Spec string
		Config     *string
	}
	err := r.tx.Table("pools").Select("pools.name, pools.spec, pool_policies.config").
		Joins("LEFT JOIN pool_policies ON pool_policies.pool_id = pools.id").Order("pools.name").Scan(&rows).Error
	if err != nil {
		return nil, err
	}
	pools := make([]poolSetting, len(rows))
	for i, row := range rows {
		pools[i] = poolSetting{name: row.Name, spec: row.Spec, configured: row.Config != nil}
		if row.Config != nil {
			if err := json.Unmarshal([]byte(*row.Config), &pools[i].cfg); err != nil {
				pools[i].err = fmt.Errorf("pool %q config: %w", row.Name, err)
			}
		}
	}
	r.pools, r.read = pools, true
	return pools, nil
}

// poolsOfSpec counts the pools of spec.
func (r *submitReads) poolsOfSpec(spec string) (int, error) {
	pools, err := r.poolSettings()
	n := 0
	for _, p := range pools {
		if p.spec == spec {
			n++
		}
	}
	return n, err
}

// configured is the pools that have a configuration, in name order, with it decoded; spec ""
// takes every spec.
func (r *submitReads) configured(spec string) ([]ConfiguredPool, error) {
	pools, err := r.poolSettings()
	if err != nil {
		return nil, err
	}
	var out []ConfiguredPool
	for _, p := range pools {
		if !p.configured || spec != "" && p.spec != spec {
			continue
		}
		if p.err != nil {
			return nil, p.err
		}
		out = append(out, ConfiguredPool{Pool: Pool{Name: p.name, Spec: p.spec}, Config: p.cfg})
	}
	return out, nil
}

// noQuotaRules is the pools' rules for projects with no quota (NoQuotaRules).
func (r *submitReads) noQuotaRules() (map[string]NoQuotaRule, error) {
	pools, err := r.configured("")
	if err != nil {
		return nil, err
	}
	return NoQuotaRules(pools), nil
}

// allSpecs is the pools' specs, each once, in the database's order.
func (r *submitReads) allSpecs() ([]string, error) {
	if r.listed {
		return r.specs, nil
	}
	var specs []string
	if err := r.tx.Model(&Pool{}).Distinct("spec").Order("spec").Pluck("spec", &specs).Error; err != nil {
		return nil, err
	}
	r.specs, r.listed = specs, true
	return specs, nil
}
