package models

import "gorm.io/gorm"

// readGPUs reads the GPUs a condition selects (all when where is empty), in node and index
// order, into a slice of the room hint gives (none when nil).
func readGPUs(db *gorm.DB, hint *sizeHint, where string, args ...any) ([]GPU, error) {
	q := `SELECT ` + gpuScan.columns + ` FROM gpus`
	if where != "" {
		q += ` WHERE ` + where
	}
	rows, err := db.Raw(q+` ORDER BY node_id, gpu_index`, args...).Rows()
	if err != nil {
		return nil, err
	}
	return scanRows(rows, hint, func(g *GPU) []any { return gpuScan.dest(g) })
}
