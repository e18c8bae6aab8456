package models

// Links: how a pool's cards talk within a node (IntraNodeLink) and its nodes with each other
// (InterNodeLink). LinkUnstated, the default, is stored as "": the admin has not said, and
// the scheduler judges nothing by it.
const (
	LinkUnstated   = "unstated"
	LinkNVLink     = "nvlink"
	LinkPCIe       = "pcie"
	LinkNone       = "none"
	LinkRoCE       = "roce"
	LinkInfiniBand = "infiniband"
	LinkEthernet   = "ethernet"
)

// Bounds of the attributes: NVLink 5 gives a card 1,800 GB/s; a node has at most 64 network
// ports of at most 3,200 Gb/s; storage reads at most 1,000,000 MB/s (1 TB/s).
const (
	MaxIntraNodeGBytesS  = 10_000
	MaxInterNodePorts    = 64
	MaxInterNodePortGbps = 3200
	MaxInterNodeGbps     = MaxInterNodePorts * MaxInterNodePortGbps
	MaxStorageMBps       = 1_000_000
)

// PoolAttributes are what a pool's machines offer for work across cards and nodes, as its
// admin (or its cloud flavor) states them; see PoolConfig's fields of the same names.
type PoolAttributes struct {
	IntraNodeLink     string
	IntraNodeGBytesS  int
	InterNodeLink     string
	InterNodePorts    int
	InterNodePortGbps int
	LocalStorageMBps  int
	SharedStorageMBps int
}

// Attributes are the pool's attributes.
func (c PoolConfig) Attributes() PoolAttributes {
	return PoolAttributes{IntraNodeLink: c.IntraNodeLink, IntraNodeGBytesS: c.IntraNodeGBytesS, InterNodeLink: c.InterNodeLink,
		InterNodePorts: c.InterNodePorts, InterNodePortGbps: c.InterNodePortGbps, LocalStorageMBps: c.LocalStorageMBps,
		SharedStorageMBps: c.SharedStorageMBps}
}

// InterNodeGbps is the bandwidth of a node's network to the others: ports × Gb/s each; 0
// when unstated or none.
func (a PoolAttributes) InterNodeGbps() int { return a.InterNodePorts * a.InterNodePortGbps }

// NoInterNode reports whether the pool states that its nodes have no network between them
// for a task across nodes.
func (a PoolAttributes) NoInterNode() bool { return a.InterNodeLink == LinkNone }

// StorageMBps is the better of the local and shared storage's read throughput, what a task's
// min_storage_mbps is held against (it may read from either); 0 when neither is stated.
func (a PoolAttributes) StorageMBps() int { return max(a.LocalStorageMBps, a.SharedStorageMBps) }

// Stated reports whether any attribute is stated.
func (a PoolAttributes) Stated() bool { return a != PoolAttributes{} }

// checkAttributes adds the rules between the attributes: a bandwidth needs its link named,
// and a network between nodes has ports of some speed, none has neither.
func checkAttributes(ps *Problems, c PoolConfig, bad func(...string) bool) {
	if !bad("intra_node_gbytes_s", "intra_node_link") && c.IntraNodeGBytesS > 0 && c.IntraNodeLink == "" {
		ps.Add(fieldErr("intra_node_gbytes_s", "needs the link within a node named (nvlink or pcie); got %d GB/s with none", c.IntraNodeGBytesS))
	}
	if bad("inter_node_link", "inter_node_ports", "inter_node_port_gbps") {
		return
	}
	network := c.InterNodeLink != "" && c.InterNodeLink != LinkNone
	for _, f := range []struct {
		name   string
		v, max int
	}{{"inter_node_ports", c.InterNodePorts, MaxInterNodePorts}, {"inter_node_port_gbps", c.InterNodePortGbps, MaxInterNodePortGbps}} {
		switch {
		case network && f.v < 1:
			ps.Add(fieldErr(f.name, "must be 1 to %d with a network between nodes (%s); got %d", f.max, c.InterNodeLink, f.v))
		case !network && f.v != 0:
			ps.Add(fieldErr(f.name, "must be 0 without a network between nodes named; got %d", f.v))
		}
	}
}
