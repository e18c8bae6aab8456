package agent

import (
	"strconv"

	"kashi/api"
)

// torchrunEnv names the task's shape as torchrun reads it (MASTER_ADDR, MASTER_PORT, NNODES,
// NODE_RANK); the task's own env may override them. None when the server sent no shape.
func torchrunEnv(a api.Assignment) []string {
	if a.NNodes == 0 {
		return nil
	}
	return []string{
		"MASTER_ADDR=" + a.MasterAddr,
		"MASTER_PORT=" + strconv.Itoa(a.MasterPort),
		"NNODES=" + strconv.Itoa(a.NNodes),
		"NODE_RANK=" + strconv.Itoa(a.NodeRank),
	}
}

// kashiEnv names the task's shape in the KASHI_ variables, which the task cannot override:
// the node's rank among KASHI_NNODES nodes, the rendezvous of the rank-0 node, the task's
// GPUs (KASHI_WORLD_SIZE) and the global rank of this node's first GPU (KASHI_RANK); none
// when the server sent no shape. A service replica's model server is told the port to serve
// on (KASHI_METRICS_PORT), its own among the service's replicas.
func kashiEnv(a api.Assignment) []string {
	var port []string
	if a.MetricsPort > 0 {
		port = []string{"KASHI_METRICS_PORT=" + strconv.Itoa(a.MetricsPort)}
	}
	if a.NNodes == 0 {
		return port
	}
	return append(port,
		"KASHI_RANK="+strconv.Itoa(a.Rank),
		"KASHI_NODE_RANK="+strconv.Itoa(a.NodeRank),
		"KASHI_WORLD_SIZE="+strconv.Itoa(a.WorldSize),
		"KASHI_NNODES="+strconv.Itoa(a.NNodes),
		"KASHI_MASTER_ADDR="+a.MasterAddr,
		"KASHI_MASTER_PORT="+strconv.Itoa(a.MasterPort),
	)
}
