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
// hash of the node's new token. Registering a hostname again (an agent restart) updates the
// node in place and replaces its token, but only with the node's current token
// (NodeTokenHash) or a single-use join token (ErrConflict otherwise); a removed node's
// hostname is free. A GPU held by an open allocation on another node never moves
// (ErrConflict). A single-use join token is spent (ErrNotFound when not valid).
func (s *Store) RegisterNode(ctx context.Context, req NodeRegistration, tokenHash string, now time.Time) (Node, error) {
	defer s.capacity.clear()   // the fleet may change
	defer s.nodeTokens.clear() // the node's old token must stop working
	spec, err := validateRegister(req)
	if err != nil {
		return Node{}, err
	}
	now = UTC(now)
	var node Node
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if req.JoinTokenHash != "" {
			if err := useJoinToken(tx, req.JoinTokenHash, req.MachineID, req.Hostname, now); err != nil {
				return err
			}
		}
		pool, err := poolForRegister(tx, req.Pool, spec, len(req.GPUs), now)
		if err != nil {
			return err
		}
		err = forUpdate(tx).Where("hostname = ?", req.Hostname).Take(&node).Error
		switch {
		case errors.Is(err, gorm.ErrRecordNotFound):
			node = Node{PoolID: pool.ID, Hostname: req.Hostname, MachineID: req.MachineID, TokenHash: tokenHash,
				State: NodeReady, RegisteredAt: now, LastSeenAt: now}
			if err := tx.Create(&node).Error; err != nil {
				return fmt.Errorf("create node: %w", err)
			}
		case err != nil:
			return err
		case node.State != NodeRemoved && req.JoinTokenHash == "" && req.NodeTokenHash != node.TokenHash:
			return fmt.Errorf("%w: %w", fieldErr("hostname", "%q is registered: register again with the node's own token "+
				"(X-Kashi-Node-Token) or a single-use join token from an admin", req.Hostname), ErrConflict)
		default:
			node.PoolID, node.MachineID, node.TokenHash = pool.ID, req.MachineID, tokenHash
			node.RegisteredAt, node.LastSeenAt = now, now
			// An agent restart does not undo a drain; any other state comes back ready.
			if node.State != NodeDraining {
				node.State = NodeReady
			}
			if err := tx.Save(&node).Error; err != nil {
				return fmt.Errorf("update node: %w", err)
			}
		}
		for i, g := range req.GPUs {
			if err := gpuStays(tx, g.UUID, node.ID, i); err != nil {
				return err
			}
			row := GPU{NodeID: node.ID, UUID: g.UUID, Index: g.Index, Name: g.Name, Spec: spec, MemoryTotalMiB: g.MemoryTotalMiB}
			res := tx.Model(&GPU{}).Where("uuid = ?", g.UUID).Updates(map[string]any{
				"node_id": node.ID, "gpu_index": g.Index, "name": g.Name, "spec": spec, "memory_total_mib": g.MemoryTotalMiB})
			if res.Error != nil {
				return fmt.Errorf("update gpu %s: %w", g.UUID, res.Error)
			}
			if res.RowsAffected == 0 {
				if err := tx.Create(&row).Error; err != nil {
					return fmt.Errorf("create gpu %s: %w", g.UUID, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		var fe *FieldError
		if errors.As(err, &fe) || errors.Is(err, ErrNotFound) {
			return Node{}, err
		}
		return Node{}, fmt.Errorf("models: register node %q: %w", req.Hostname, err)
	}
	return node, nil
}

// gpuStays refuses to move the GPU uuid (the i-th registered) to nodeID while an open
// allocation holds it on another node.
func gpuStays(tx *gorm.DB, uuid string, nodeID int64, i int) error {
	var n int64
	err := tx.Table("allocations").Joins("JOIN gpus ON gpus.id = allocations.gpu_id").
		Where("gpus.uuid = ? AND gpus.node_id <> ? AND allocations.ended_at IS NULL", uuid, nodeID).Count(&n).Error
	if err != nil {
		return err
	}
	if n > 0 {
		fe := fieldErr(fmt.Sprintf("gpus[%d].uuid", i), "GPU %s is held by a running task on another node", truncate(uuid, 100))
		return fmt.Errorf("%w: %w", fe, ErrConflict)
	}
	return nil
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
