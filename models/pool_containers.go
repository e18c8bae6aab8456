package models

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"gorm.io/gorm"
)

// maxPoolMounts bounds a pool's container mounts.
const maxPoolMounts = 16

// Mounts returns the pool's container mounts, "/host:/container[:ro]", in the order given.
func (c PoolConfig) Mounts() []string {
	var out []string
	for m := range strings.SplitSeq(c.ContainerMounts, ",") {
		if m = strings.TrimSpace(m); m != "" {
			out = append(out, m)
		}
	}
	return out
}

// checkContainerMounts refuses a mount that is not /host/path:/container/path with an
// optional :ro or :rw, a path that is not absolute and clean, and two mounts at one container
// path.
func checkContainerMounts(c PoolConfig) error {
	ms := c.Mounts()
	if len(ms) > maxPoolMounts {
		return fieldErr("container_mounts", "must be at most %d mounts, got %d", maxPoolMounts, len(ms))
	}
	var seen []string
	for _, m := range ms {
		f := strings.Split(m, ":")
		ok := len(f) == 2 || len(f) == 3 && (f[2] == "ro" || f[2] == "rw")
		for _, p := range f[:min(2, len(f))] {
			ok = ok && strings.HasPrefix(p, "/") && path.Clean(p) == p
		}
		if !ok {
			return fieldErr("container_mounts", "%q is not /host/path:/container/path or /host/path:/container/path:ro", truncate(m, 80))
		}
		if slices.Contains(seen, f[1]) {
			return fieldErr("container_mounts", "mount two folders at %s", f[1])
		}
		seen = append(seen, f[1])
	}
	return nil
}

// checkImageRequired refuses a task without an image for a spec whose pool requires one; a
// task that takes any spec ("") could land on such a pool, so it is refused while any pool
// requires images.
func checkImageRequired(tx *gorm.DB, spec, image string) error {
	if image != "" {
		return nil
	}
	pools, err := poolConfigsOf(tx, spec)
	if err != nil {
		return err
	}
	for _, p := range pools {
		if p.Config.RequireImage {
			return fieldErr("image", "is required: pool %q runs tasks in container images only", p.Name)
		}
	}
	return nil
}

// namedConfig is a pool's name with its configuration.
type namedConfig struct {
	Name   string
	Config PoolConfig
}

// poolConfigsOf reads the configurations of the pools of spec (every pool's for ""), by name:
// what the checks of a submitted task against the pools it may land on read.
func poolConfigsOf(tx *gorm.DB, spec string) ([]namedConfig, error) {
	var rows []struct {
		Name   string
		Config string
	}
	q := tx.Table("pools").Select("pools.name, pool_policies.config").
		Joins("JOIN pool_policies ON pool_policies.pool_id = pools.id").Order("pools.name")
	if spec != "" {
		q = q.Where("pools.spec = ?", spec)
	}
	if err := q.Scan(&rows).Error; err != nil {
		return nil, err
	}
	out := make([]namedConfig, len(rows))
	for i, r := range rows {
		out[i].Name = r.Name
		if err := json.Unmarshal([]byte(r.Config), &out[i].Config); err != nil {
			return nil, fmt.Errorf("pool %q config: %w", r.Name, err)
		}
	}
	return out, nil
}
