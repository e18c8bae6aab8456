package models

import (
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// forUpdate makes the query that follows lock the rows it reads until the transaction ends
// (SELECT … FOR UPDATE), so a read-modify-write cannot lose a concurrent update on Postgres,
// whose transactions read committed data without blocking. SQLite has no row locks; there
// every write transaction takes the database's write lock at BEGIN (_txlock=immediate), which
// serialises the same steps, and GORM's SQLite dialect leaves the clause out.
func forUpdate(tx *gorm.DB) *gorm.DB {
	return tx.Clauses(clause.Locking{Strength: clause.LockingStrengthUpdate})
}

// lockProject locks a project's row: steps that read and then write a project's quotas,
// adjustments or issued bills take it first, so they run one after another.
func lockProject(tx *gorm.DB, projectID int64) error {
	var p Project
	if err := forUpdate(tx).Select("id").Where("id = ?", projectID).Take(&p).Error; err != nil {
		return notFound("project", err)
	}
	return nil
}
