package models

import (
	"encoding/json"
	"fmt"

	"gorm.io/gorm"
)

// nodePoolConfig returns the configuration of the node's pool; the zero configuration when
// the pool has none (a pool its first node made).
func nodePoolConfig(tx *gorm.DB, nodeID int64) (PoolConfig, error) {
	var configs []string
	err := tx.Table("pool_policies").Select("pool_policies.config").
		Joins("JOIN nodes ON nodes.pool_id = pool_policies.pool_id").Where("nodes.id = ?", nodeID).Scan(&configs).Error
	var cfg PoolConfig
	if err != nil || len(configs) == 0 {
		return cfg, err
	}
	if err := json.Unmarshal([]byte(configs[0]), &cfg); err != nil {
		return cfg, fmt.Errorf("pool config of node %d: %w", nodeID, err)
	}
	return cfg, nil
}

// ownerAccounts returns the Unix account of each owner of tasks that is a user, by name.
func ownerAccounts(tx *gorm.DB, tasks []Task) (map[string]string, error) {
	owners := make([]string, 0, len(tasks))
	for _, t := range tasks {
		owners = append(owners, t.Owner)
	}
	var users []User
	if err := tx.Select("name, unix_account").Where("name IN ?", owners).Find(&users).Error; err != nil {
		return nil, err
	}
	out := make(map[string]string, len(users))
	for _, u := range users {
		out[u.Name] = u.UnixAccount
	}
	return out, nil
}

// runAs sets whom the task of owner runs as on the node, and its limits there, from the
// node's pool configuration and the owners' Unix accounts: the owner's account, else, where
// the pool says so, the owner's own name when it is an account name; the pool's per-GPU
// limits times the task's GPUs on the node.
func (a *Assignment) runAs(cfg PoolConfig, owner string, accounts map[string]string) {
	a.RunAsUser = accounts[owner]
	if a.RunAsUser == "" && cfg.AccountsByName && ValidUnixAccount(owner) {
		a.RunAsUser = owner
	}
	a.AllowRoot = cfg.AllowRoot
	gpus := int64(len(a.GPUUUIDs))
	a.MemoryLimitMiB = int64(cfg.TaskMemoryPerGPUGiB) * 1024 * gpus
	a.CPULimitMillis = int64(cfg.TaskCPUsPerGPU) * 1000 * gpus
}
