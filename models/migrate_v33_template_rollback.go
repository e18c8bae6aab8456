package models

import "gorm.io/gorm"

// v33TaskTemplateVersion is migration 33's frozen addition to a template version: the
// earlier version it restores.
type v33TaskTemplateVersion struct {
	Restores int `gorm:"not null;default:0"`
}

func (v33TaskTemplateVersion) TableName() string { return "task_template_versions" }

// migrateV33TemplateRollback adds the version a template version restores (a rollback), 0 for
// a change of its own.
func migrateV33TemplateRollback(tx *gorm.DB) error {
	return tx.Migrator().AddColumn(&v33TaskTemplateVersion{}, "Restores")
}
