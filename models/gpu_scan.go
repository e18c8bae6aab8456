package models

import "gorm.io/gorm"

// gpuColumns are a GPU's columns in the order gpuDest scans them. Reads of every GPU (the
// board's snapshot, the scheduler's pass) scan rows themselves: GORM's reflection cost more
// than the query for a few thousand GPUs. A column added to GPU is added here too
// (TestGPUColumnsCoverGPU).
const gpuColumns = `gpus.id, gpus.node_id, gpus.uuid, gpus.gpu_index, gpus.name, gpus.spec,
	gpus.memory_total_mib, gpus.memory_used_mib, gpus.util_pct, gpus.temp_c, gpus.power_w, gpus.sampled_at,
	gpus.idle_since, gpus.saturated_since, gpus.unmanaged_mib, gpus.unmanaged_who, gpus.unmanaged_since, gpus.unmanaged_read_at, gpus.listed_at`

// gpuDest returns the scan destinations of gpuColumns in g.
func gpuDest(g *GPU) []any {
	return []any{&g.ID, &g.NodeID, &g.UUID, &g.Index, &g.Name, &g.Spec,
		&g.MemoryTotalMiB, &g.MemoryUsedMiB, &g.UtilPct, &g.TempC, &g.PowerW, &g.SampledAt,
		&g.IdleSince, &g.SaturatedSince, &g.UnmanagedMiB, &g.UnmanagedWho, &g.UnmanagedSince, &g.UnmanagedReadAt, &g.ListedAt}
}

// readGPUs reads the GPUs a condition selects (all when where is empty), in node and index
// order.
func readGPUs(db *gorm.DB, where string, args ...any) ([]GPU, error) {
	q := `SELECT ` + gpuColumns + ` FROM gpus`
	if where != "" {
		q += ` WHERE ` + where
	}
	rows, err := db.Raw(q+` ORDER BY node_id, gpu_index`, args...).Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []GPU
	for rows.Next() {
		var g GPU
		if err := rows.Scan(gpuDest(&g)...); err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, rows.Err()
}
