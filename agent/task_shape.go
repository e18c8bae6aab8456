package agent

import (
	"strconv"

	"kashi/api"
)

// TorchrunEnv names the task's shape as torchrun reads it (MASTER_ADDR, MASTER_PORT, NNODES,
// NODE_RANK); the task's own env may override them. None when the server sent no shape.
func TorchrunEnv(a api.Assignment) []string {
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

// KashiEnv names the task's shape in the KASHI_ variables, which the task cannot override:
// the node's rank among KASHI_NNODES nodes, the rendezvous of the rank-0 node, the task's
// GPUs (KASHI_WORLD_SIZE) and the global rank of this node's first GPU (KASHI_RANK); where
// its data is in this node's region (KASHI_DATA_REGION, KASHI_DATA_LOCATION); and, for a
// service replica, the port its model server serves on (KASHI_METRICS_PORT), its own among
// the service's replicas; for a rerun, its attempt (KASHI_ATTEMPT) and the checkpoint it
// resumes from (KASHI_RESUME_FROM). None of the shape when the server sent no shape, none of
// the data when it sent no location, neither of the two for a first run.
func KashiEnv(a api.Assignment) []string {
	var env []string
	if a.DataLocation != "" {
		env = append(env, "KASHI_DATA_REGION="+a.DataRegion, "KASHI_DATA_LOCATION="+a.DataLocation)
	}
	if a.MetricsPort > 0 {
		env = append(env, "KASHI_METRICS_PORT="+strconv.Itoa(a.MetricsPort))
	}
	if a.Attempt > 1 {
		env = append(env, "KASHI_ATTEMPT="+strconv.Itoa(a.Attempt))
		if a.ResumeFrom != "" {
			env = append(env, "KASHI_RESUME_FROM="+a.ResumeFrom)
		}
	}
	if a.NNodes == 0 {
		return env
	}
	return append(env,
		"KASHI_RANK="+strconv.Itoa(a.Rank),
		"KASHI_NODE_RANK="+strconv.Itoa(a.NodeRank),
		"KASHI_WORLD_SIZE="+strconv.Itoa(a.WorldSize),
		"KASHI_NNODES="+strconv.Itoa(a.NNodes),
		"KASHI_MASTER_ADDR="+a.MasterAddr,
		"KASHI_MASTER_PORT="+strconv.Itoa(a.MasterPort),
	)
}
