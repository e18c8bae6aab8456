package models

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// RegisterNode records a node and its GPUs, creating its pool on first use, and stores the
// hash of the node's new token. A node owns its hostname, machine id and GPUs from its first
// registration. A registration is about a registered node only when it proves so: with that
// node's current token (NodeTokenHash: its agent registering again after a restart or a GPU
// swap), or with a single-use join token bound to that node or to its machine id (an admin's
// decision). It then updates that node in place, hostname, machine id and GPUs included, and
// replaces its token; an agent restart does not undo a drain. Any other registration is a new
// node, or takes back the row of a removed node of its hostname. Whichever it is, taking a
// hostname, machine id or GPU that belongs to another node (one not removed, or a GPU an open
// allocation holds; a GPU its node registered since without is let go) is refused with a *FieldError naming the field and ErrConflict, audited
// and alerted (recordClaim). A single-use join token is spent (ErrNotFound when not valid).
func (s *Store) RegisterNode(ctx context.Context, req NodeRegistration, tokenHash string, now time.Time) (Node, error) {
	spec, err := validateRegister(req)
	if err != nil {
		return Node{}, err
	}
	now = UTC(now)
	var node Node
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		self, err := registeringNode(tx, req, now)
		if err != nil {
			return err
		}
		pool, err := poolForRegister(tx, req.Pool, spec, len(req.GPUs), now)
		if err != nil {
			return err
		}
		if err := nameIsFree(tx, self.ID, req); err != nil {
			return err
		}
		have, err := gpusAreFree(tx, self.ID, req.GPUs)
		if err != nil {
			return err
		}
		node = self
		node.PoolID, node.Hostname, node.MachineID, node.TokenHash = pool.ID, req.Hostname, req.MachineID, tokenHash
		node.RegisteredAt, node.LastSeenAt = now, now
		if node.State != NodeDraining {
			node.State = NodeReady
		}
		if node.ID == 0 {
			err = tx.Create(&node).Error
		} else {
			err = tx.Save(&node).Error
		}
		if isUniqueViolation(err) { // on Postgres: another registration took the name meanwhile
			return &claimError{self: self.ID}
		}
		if err != nil {
			return fmt.Errorf("save node: %w", err)
		}
		for i, g := range req.GPUs {
			row := GPU{NodeID: node.ID, UUID: g.UUID, Index: g.Index, Name: g.Name, Spec: spec, MemoryTotalMiB: g.MemoryTotalMiB,
				ListedAt: &now}
			if _, ok := have[g.UUID]; !ok {
				err := tx.Create(&row).Error
				if isUniqueViolation(err) { // on Postgres: another registration took it meanwhile
					return &claimError{self: self.ID, what: claimGPU, gpu: i}
				}
				if err != nil {
					return fmt.Errorf("create gpu %s: %w", g.UUID, err)
				}
				continue
			}
			err := tx.Model(&GPU{}).Where("uuid = ?", g.UUID).Updates(map[string]any{
				"node_id": node.ID, "gpu_index": g.Index, "name": g.Name, "spec": spec, "memory_total_mib": g.MemoryTotalMiB,
				"listed_at": now}).Error
			if err != nil {
				return fmt.Errorf("update gpu %s: %w", g.UUID, err)
			}
		}
		// The node lets go of the GPUs it no longer lists.
		err = tx.Model(&GPU{}).Where("node_id = ? AND uuid NOT IN ?", node.ID, uuidsOf(req.GPUs)).Update("listed_at", nil).Error
		if err != nil {
			return fmt.Errorf("let go of gpus: %w", err)
		}
		return nil
	})
	if ce, ok := errors.AsType[*claimError](err); ok {
		return Node{}, s.recordClaim(ctx, req, ce, now)
	}
	if err != nil {
		var fe *FieldError
		if errors.As(err, &fe) || errors.Is(err, ErrNotFound) {
			return Node{}, err
		}
		return Node{}, fmt.Errorf("models: register node %q: %w", req.Hostname, err)
	}
	// Committed: the fleet changed, and the node's old token must stop working. A refused
	// registration forgets nothing, so that a stream of them costs agents no queries.
	s.capacity.clear()
	s.nodeTokens.clear()
	s.gpuRows.clear() // its GPUs may have moved between nodes
	return node, nil
}

// poolForRegister finds the named pool or creates it; a pool holds one spec only.
func poolForRegister(tx *gorm.DB, name, spec string, gpus int, now time.Time) (Pool, error) {
	var pool Pool
	err := tx.Where("name = ?", name).Take(&pool).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		if err := checkNewPoolName("pool", name); err != nil {
			return pool, err
		}
		// Nodes of a new pool register at once: the first creates it, the others (waiting on
		// Postgres for its commit) read it.
		pool = Pool{Name: name, Spec: spec, Provider: "static", GPUsPerNode: gpus, CreatedAt: now}
		ins := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "name"}}, DoNothing: true}).Create(&pool)
		if ins.Error != nil || ins.RowsAffected == 1 {
			return pool, ins.Error
		}
		pool = Pool{}
		err = tx.Where("name = ?", name).Take(&pool).Error
	}
	if err != nil {
		return pool, err
	}
	if pool.Spec != spec {
		return pool, fieldErr("pool", "pool %q holds %s GPUs, this node has %s", name, pool.Spec, spec)
	}
	return pool, nil
}

// validateRegister checks a registration and returns the node's GPU spec.
func validateRegister(req NodeRegistration) (string, error) {
	if err := checkName("hostname", req.Hostname, 255); err != nil {
		return "", err
	}
	if err := checkName("pool", req.Pool, 100); err != nil {
		return "", err
	}
	if len(req.MachineID) > 255 || !utf8.ValidString(req.MachineID) {
		return "", fieldErr("machine_id", "must be valid UTF-8 of at most 255 bytes")
	}
	if len(req.GPUs) == 0 || len(req.GPUs) > MaxGPUsPerNode {
		return "", fieldErr("gpus", "a node registers 1 to %d GPUs, got %d", MaxGPUsPerNode, len(req.GPUs))
	}
	var spec string
	uuids := make(map[string]bool, len(req.GPUs))
	indexes := make(map[int]bool, len(req.GPUs))
	for i, g := range req.GPUs {
		field := fmt.Sprintf("gpus[%d]", i)
		if err := checkName(field+".uuid", g.UUID, 100); err != nil {
			return "", err
		}
		if err := checkName(field+".name", g.Name, 255); err != nil {
			return "", err
		}
		if uuids[g.UUID] {
			return "", fieldErr(field+".uuid", "duplicate uuid %q", g.UUID)
		}
		if g.Index < 0 || indexes[g.Index] {
			return "", fieldErr(field+".index", "must be a distinct index ≥ 0, got %d", g.Index)
		}
		if g.MemoryTotalMiB <= 0 || g.MemoryTotalMiB > 1<<22 {
			return "", fieldErr(field+".memory_total_mib", "must be between 1 and %d, got %d", 1<<22, g.MemoryTotalMiB)
		}
		uuids[g.UUID], indexes[g.Index] = true, true
		gs := SpecOf(g.Name, g.MemoryTotalMiB)
		if spec != "" && gs != spec {
			return "", fieldErr(field+".name", "a node holds one spec; %s differs from %s", gs, spec)
		}
		spec = gs
	}
	return spec, nil
}

// NodeByTokenHash returns the node whose token hashes to hash. A verified token is
// remembered for a few seconds (node_token_cache.go); the node it returns is as it was then.
func (s *Store) NodeByTokenHash(ctx context.Context, hash string) (Node, error) {
	n, ok, gen := s.nodeTokens.get(hash)
	if ok {
		return n, nil
	}
	if err := s.db.WithContext(ctx).Where("token_hash = ?", hash).Take(&n).Error; err != nil {
		return n, notFound("node by token", err)
	}
	s.nodeTokens.put(hash, n, gen)
	return n, nil
}
