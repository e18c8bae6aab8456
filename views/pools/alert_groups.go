package pools

import (
	"cmp"
	"slices"
	"strconv"
)

// GroupAlerts groups open alerts into one row per task, else per node, else per alert; the
// worst severity first, then the most recent. names maps node ids to hostnames.
func GroupAlerts(open []AlertView, names map[int64]string) []AlertGroup {
	var out []AlertGroup
	at := map[string]int{}
	for _, a := range open {
		key := "alert-" + strconv.FormatInt(a.ID, 10)
		switch {
		case a.TaskID != 0:
			key = "task-" + strconv.FormatInt(a.TaskID, 10)
		case a.NodeID != 0:
			key = "node-" + strconv.FormatInt(a.NodeID, 10)
		}
		i, ok := at[key]
		if !ok {
			i = len(out)
			at[key] = i
			out = append(out, AlertGroup{Key: key, TaskID: a.TaskID, NodeID: a.NodeID, Node: names[a.NodeID],
				Pool: a.Pool, Severity: a.Severity, At: a.At, LastAt: a.LastAt, Acked: true})
		}
		g := &out[i]
		g.Alerts = append(g.Alerts, a)
		if severityRank(a.Severity) < severityRank(g.Severity) {
			g.Severity = a.Severity
		}
		if g.NodeID == 0 && a.NodeID != 0 {
			g.NodeID, g.Node = a.NodeID, names[a.NodeID]
		}
		if g.Pool == "" {
			g.Pool = a.Pool
		}
		if a.At.Before(g.At) {
			g.At = a.At
		}
		if a.LastAt.After(g.LastAt) {
			g.LastAt = a.LastAt
		}
		if a.Sent {
			g.Sent++
		}
		if a.AckedAt == nil {
			g.Acked = false
		} else if g.AckedAt == nil || a.AckedAt.After(*g.AckedAt) {
			g.AckedBy, g.AckedAt = a.AckedBy, a.AckedAt
		}
	}
	slices.SortStableFunc(out, func(a, b AlertGroup) int {
		if c := cmp.Compare(severityRank(a.Severity), severityRank(b.Severity)); c != 0 {
			return c
		}
		return b.LastAt.Compare(a.LastAt)
	})
	return out
}

// GroupResolved groups resolved alerts (the latest first) into one row per kind and task,
// else per kind and node, else per alert, in the order of their latest alert. names maps
// node ids to hostnames.
func GroupResolved(resolved []AlertView, names map[int64]string) []ResolvedGroup {
	var out []ResolvedGroup
	at := map[string]int{}
	for _, a := range resolved {
		key := a.Kind + "/alert-" + strconv.FormatInt(a.ID, 10)
		switch {
		case a.TaskID != 0:
			key = a.Kind + "/task-" + strconv.FormatInt(a.TaskID, 10)
		case a.NodeID != 0:
			key = a.Kind + "/node-" + strconv.FormatInt(a.NodeID, 10)
		}
		i, ok := at[key]
		if !ok {
			i = len(out)
			at[key] = i
			out = append(out, ResolvedGroup{Key: key, Kind: a.Kind, TaskID: a.TaskID, NodeID: a.NodeID,
				Node: names[a.NodeID], At: a.At, LastAt: a.LastAt})
		}
		g := &out[i]
		g.Alerts = append(g.Alerts, a)
		g.Times += a.Count
		if a.Sent {
			g.Sent++
		}
		if g.NodeID == 0 && a.NodeID != 0 {
			g.NodeID, g.Node = a.NodeID, names[a.NodeID]
		}
		if a.At.Before(g.At) {
			g.At = a.At
		}
		if a.LastAt.After(g.LastAt) {
			g.LastAt = a.LastAt
		}
		if a.ResolvedAt != nil && a.ResolvedAt.After(g.ResolvedAt) {
			g.ResolvedAt = *a.ResolvedAt
		}
	}
	return out
}

// byKind cuts a group's alerts into runs of one kind each, in the order each kind first
// comes: several alerts of a kind (a task's cards, one alert each) read as one line.
func byKind(alerts []AlertView) [][]AlertView {
	var out [][]AlertView
	at := map[string]int{}
	for _, a := range alerts {
		i, ok := at[a.Kind]
		if !ok {
			i = len(out)
			at[a.Kind] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], a)
	}
	return out
}

// times is how often alerts were raised, all together.
func times(alerts []AlertView) int {
	n := 0
	for _, a := range alerts {
		n += a.Count
	}
	return n
}

// severityRank orders severities, the worst first.
func severityRank(sev string) int {
	switch sev {
	case "critical":
		return 0
	case "info":
		return 2
	}
	return 1
}

// nodeName is a node's hostname, or its id when the name is unknown.
func nodeName(host string, id int64) string {
	if host != "" {
		return host
	}
	return "#" + strconv.FormatInt(id, 10)
}
