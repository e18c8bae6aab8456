package models

import "gorm.io/gorm"

// v44Task is migration 44's frozen addition to tasks: the least a pool must state for the
// task (network between nodes, storage throughput) and whether it may run across nodes that
// have no network between them. The pools' attributes are settings, kept in their JSON.
type v44Task struct {
	MinInterNodeGbps    int  `gorm:"not null;default:0"`
	MinStorageMBps      int  `gorm:"column:min_storage_mbps;not null;default:0"`
	AllowNoInterconnect bool `gorm:"not null;default:false"`
}

func (v44Task) TableName() string { return "tasks" }

// migrateV44Attributes adds them; tasks stored before ask no minimum and allow nothing more
// than before.
func migrateV44Attributes(tx *gorm.DB) error {
	m := tx.Migrator()
	for _, f := range []string{"MinInterNodeGbps", "MinStorageMBps", "AllowNoInterconnect"} {
		if err := m.AddColumn(&v44Task{}, f); err != nil {
			return err
		}
	}
	return nil
}
