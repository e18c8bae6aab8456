package pools

import (
	"strconv"

	"kashi/phrase"
)

// Helpers of join_tokens.templ.

// joinTokenFor says what a join token is bound to: a machine id, a node, or both.
func joinTokenFor(l phrase.Locale, t JoinTokenView) string {
	node := t.Node
	if node == "" && t.NodeID != 0 {
		node = "#" + strconv.FormatInt(t.NodeID, 10)
	}
	switch {
	case node != "" && t.MachineID != "":
		return l.T("join.for_both", node, t.MachineID)
	case node != "":
		return l.T("join.for_node", node)
	}
	return l.T("join.for_machine", t.MachineID)
}

// nodeChoice is a node in the form's select: its hostname, and its machine id when it has one.
func nodeChoice(n JoinTokenNode) string {
	if n.MachineID == "" {
		return n.Hostname
	}
	return n.Hostname + " (" + n.MachineID + ")"
}
