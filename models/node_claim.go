package models

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"gorm.io/gorm"
)

// What a node owns: its hostname, machine id and GPUs, from its first registration until it
// is removed. RegisterNode finds the node a registration proves it is (registeringNode),
// checks that it takes nothing of another node's (nameIsFree, gpusAreFree; on Postgres the
// unique indexes catch a registration that committed meanwhile), and records a refusal
// (recordClaim).

// AlertNodeClaim is the kind of the alert a refused registration raises about the node whose
// hostname, machine id or GPU it would have taken.
const AlertNodeClaim = "node-claim"

// What a refused registration would have taken.
const (
	// claimName: the hostname; when a unique index refused the node's row, the hostname or
	// the machine id (recordClaim finds which).
	claimName = iota
	claimMachine
	claimGPU
)

// claimError is a registration refused because it would take what another node owns.
type claimError struct {
	self int64 // the node registering again; 0 for a new one
	what int   // claimName, claimMachine or claimGPU
	gpu  int   // the GPU's index in the registration, for claimGPU
}

func (e *claimError) Error() string { return "models: the registration takes what another node owns" }

// registeringNode returns, locked, the registered node a registration proves it is about, or
// a zero Node for a new one, and spends the registration's single-use join token. The proof
// is, first found: a join token bound to a node; the node's own token; for a Kubernetes
// pool's controller (Cluster), the pool's node of the hostname; a join token bound to a
// machine id, for the node (not removed) that has it. Without one, the removed node of the
// hostname is taken back, if there is one.
func registeringNode(tx *gorm.DB, req NodeRegistration, now time.Time) (Node, error) {
	var jt JoinToken
	if req.JoinTokenHash != "" {
		var err error
		if jt, err = useJoinToken(tx, req.JoinTokenHash, req.MachineID, req.Hostname, now); err != nil {
			return Node{}, err
		}
	}
	proofs := []struct {
		ok    bool
		where string
		args  []any
	}{
		{jt.NodeID != 0, "id = ?", []any{jt.NodeID}},
		{req.NodeTokenHash != "", "token_hash = ?", []any{req.NodeTokenHash}},
		{req.Cluster, "hostname = ? AND pool_id IN (SELECT id FROM pools WHERE name = ?)", []any{req.Hostname, req.Pool}},
		{jt.MachineID != "", "machine_id = ? AND state <> ?", []any{jt.MachineID, NodeRemoved}},
		{true, "hostname = ? AND state = ?", []any{req.Hostname, NodeRemoved}},
	}
	for _, p := range proofs {
		if !p.ok {
			continue
		}
		var n Node
		err := forUpdate(tx).Where(p.where, p.args...).Take(&n).Error
		if !errors.Is(err, gorm.ErrRecordNotFound) {
			return n, err
		}
	}
	return Node{}, nil
}

// nameIsFree refuses the registration of node self (0: a new node) when another node's row
// has its hostname, or another node not removed has its machine id.
func nameIsFree(tx *gorm.DB, self int64, req NodeRegistration) error {
	var n int64
	if err := tx.Model(&Node{}).Where("hostname = ? AND id <> ?", req.Hostname, self).Count(&n).Error; err != nil {
		return err
	}
	if n > 0 {
		return &claimError{self: self, what: claimName}
	}
	if req.MachineID == "" {
		return nil
	}
	err := tx.Model(&Node{}).Where("machine_id = ? AND state <> ? AND id <> ?", req.MachineID, NodeRemoved, self).Count(&n).Error
	if err != nil {
		return err
	}
	if n > 0 {
		return &claimError{self: self, what: claimMachine}
	}
	return nil
}

// gpusAreFree locks the rows of the registration's GPUs that exist and returns them by UUID;
// it refuses the registration of node self (0: a new node) when one belongs to another node:
// one not removed whose latest registration listed it, or one an open allocation holds.
func gpusAreFree(tx *gorm.DB, self int64, gpus []GPUInfo) (map[string]GPU, error) {
	var rows []GPU
	if err := forUpdate(tx).Where("uuid IN ?", uuidsOf(gpus)).Order("id").Find(&rows).Error; err != nil {
		return nil, err
	}
	have := make(map[string]GPU, len(rows))
	var nodeIDs, gpuIDs []int64
	for _, r := range rows {
		have[r.UUID] = r
		if r.NodeID != self {
			nodeIDs, gpuIDs = append(nodeIDs, r.NodeID), append(gpuIDs, r.ID)
		}
	}
	if len(gpuIDs) == 0 {
		return have, nil
	}
	var owners []Node
	if err := tx.Select("id, state").Where("id IN ?", nodeIDs).Find(&owners).Error; err != nil {
		return nil, err
	}
	var held []int64
	if err := tx.Model(&Allocation{}).Where("gpu_id IN ? AND ended_at IS NULL", gpuIDs).Pluck("gpu_id", &held).Error; err != nil {
		return nil, err
	}
	for i, g := range gpus {
		r, ok := have[g.UUID]
		if !ok || r.NodeID == self {
			continue
		}
		owned := r.ListedAt != nil && slices.ContainsFunc(owners, func(n Node) bool { return n.ID == r.NodeID && n.State != NodeRemoved })
		if owned || slices.Contains(held, r.ID) {
			return nil, &claimError{self: self, what: claimGPU, gpu: i}
		}
	}
	return have, nil
}

// recordClaim records a refused registration: it finds the node that owns what the
// registration would have taken, writes the refusal in the audit log and raises a critical
// alert about that node (someone holds a join token and tried a name or GPU that is not
// theirs, or two machines share one), and returns the refusal, a *FieldError naming the field
// that is ErrConflict.
func (s *Store) recordClaim(ctx context.Context, req NodeRegistration, ce *claimError, now time.Time) error {
	var fe *FieldError
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var owner Node
		take := func(q *gorm.DB) error {
			err := q.Take(&owner).Error
			if errors.Is(err, gorm.ErrRecordNotFound) {
				return nil
			}
			return err
		}
		what := ce.what
		if what == claimName {
			if err := take(tx.Where("hostname = ? AND id <> ?", req.Hostname, ce.self)); err != nil {
				return err
			}
			if owner.ID == 0 && req.MachineID != "" {
				what = claimMachine
			}
		}
		from := req.From
		if from == "" {
			from = "?"
		}
		in := AlertInput{Kind: AlertNodeClaim, Severity: SeverityCritical}
		switch what {
		case claimName:
			fe = Invalid("hostname", "%q belongs to another node: register it again with that node's own token (X-Kashi-Node-Token) or a join token an admin issued for that node", req.Hostname)
			in.Code, in.Params = "node_claim_hostname", []string{from, req.Hostname}
		case claimMachine:
			fe = Invalid("machine_id", "machine id %q belongs to another node", req.MachineID)
			if err := take(tx.Where("machine_id = ? AND state <> ? AND id <> ?", req.MachineID, NodeRemoved, ce.self)); err != nil {
				return err
			}
			in.Code, in.Params = "node_claim_machine", []string{from, req.Hostname, owner.Hostname}
		default:
			g := req.GPUs[ce.gpu]
			fe = Invalid(fmt.Sprintf("gpus[%d].uuid", ce.gpu), "GPU %s belongs to another node", truncate(g.UUID, 100))
			var row GPU
			if err := tx.Select("node_id, gpu_index").Where("uuid = ?", g.UUID).Take(&row).Error; err != nil {
				return err
			}
			if err := take(tx.Where("id = ?", row.NodeID)); err != nil {
				return err
			}
			in.Code, in.Params = "node_claim_gpu", []string{from, req.Hostname, strconv.Itoa(row.Index), owner.Hostname}
		}
		in.NodeID, in.Subject = owner.ID, "node "+strconv.FormatInt(owner.ID, 10)
		after := map[string]any{"field": fe.Field, "from": req.From, "hostname": req.Hostname, "machine_id": req.MachineID,
			"pool": req.Pool, "gpus": uuidsOf(req.GPUs)}
		if err := audit(tx, now, "agent", AuditNodeClaimRefused, nil, "node "+owner.Hostname, nil, after); err != nil {
			return err
		}
		_, _, err := raiseAlert(tx, in, now)
		return err
	})
	if err != nil {
		return fmt.Errorf("models: record the refused registration of %q: %w", truncate(req.Hostname, 60), err)
	}
	return fmt.Errorf("%w: %w", fe, ErrConflict)
}

// uuidsOf lists the UUIDs of gpus.
func uuidsOf(gpus []GPUInfo) []string {
	out := make([]string, len(gpus))
	for i, g := range gpus {
		out[i] = g.UUID
	}
	return out
}
