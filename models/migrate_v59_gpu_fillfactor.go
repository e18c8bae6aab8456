package models

import (
	"fmt"

	"gorm.io/gorm"
)

// gpusFillfactor is how full Postgres fills the GPUs' table's pages, in percent, leaving the
// rest for new versions of their rows.
const gpusFillfactor = 50

// migrateV59GPUFillfactor leaves room in the GPUs' pages on Postgres. The readings are
// written behind to every GPU's row about once per agent interval (gpu_write_behind.go), an
// UPDATE of thousands of rows a second at 32,768 GPUs: with full pages a quarter of the new
// versions fit beside the old (a heap-only update, which changes no index), the rest went to
// another page and into the table's four indexes, and the table grew to 35 MB for 32,568 rows
// in three minutes (BENCHMARKS.md). No indexed column changes there, so with room on the page
// an update is heap-only. Pages written before keep their fill until they are rewritten.
// SQLite rewrites a row in place and has no such setting.
func migrateV59GPUFillfactor(tx *gorm.DB) error {
	if tx.Dialector.Name() != "postgres" {
		return nil
	}
	return tx.Exec(fmt.Sprintf("ALTER TABLE gpus SET (fillfactor = %d)", gpusFillfactor)).Error
}
