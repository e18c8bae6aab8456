package pools

import "time"

// JoinTokensData is the admins' join tokens page: the shared join token's state, the form
// that issues a single-use token bound to a machine id or a registered node (its token shown
// once), and the single-use tokens not yet used.
type JoinTokensData struct {
	Now time.Time
	// Shared is the shared join token's state: "active", "revoked", or "none" when the server
	// has none (--join-token unset).
	Shared string
	Tokens []JoinTokenView
	// Nodes are the registered nodes a token may be bound to.
	Nodes []JoinTokenNode
	// MachineID and NodeID are the form's values (NodeID 0: none chosen).
	MachineID string
	NodeID    int64
	// NewToken is the token just issued, shown once; NewFor what it is bound to.
	NewToken string
	NewFor   JoinTokenView
	// Error is the form's problem; ErrorField the input it is about ("machine_id", "node_id").
	Error, ErrorField string
	// Notice confirms a revoke.
	Notice string
}

// JoinTokenView is a single-use join token, never its secret: what it is bound to (a
// machine id, a node, or both), who made it and when.
type JoinTokenView struct {
	ID        int64
	MachineID string
	NodeID    int64
	// Node is node NodeID's hostname.
	Node      string
	CreatedBy string
	CreatedAt time.Time
}

// JoinTokenNode is a registered node a token may be bound to.
type JoinTokenNode struct {
	ID        int64
	Hostname  string
	MachineID string
}
