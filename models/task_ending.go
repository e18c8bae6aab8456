package models

import (
	"fmt"
	"strings"
	"time"
)

// How a task ended, as bills and reports show it beside its card time. The ending is read
// from the task's state and the reason it took that state (TaskEnding), so a released task
// is told apart from one reclaimed for idleness, and a task whose node was lost from one
// that failed on its own.
const (
	EndFinished  = "finished"
	EndFailed    = "failed"
	EndReclaimed = "reclaimed" // reclaimed for idleness (or by the release loop)
	EndReleased  = "released"  // its owner or a lead answered an idle notice with "release now"
	EndLost      = "lost"      // its node stopped reporting
	EndTimedOut  = "timed-out"
	EndCancelled = "cancelled"
)

// releasedPrefix begins the stop reason of a task released in answer to its idle notice.
const releasedPrefix = "released by "

// ReleasedReason is the stop reason of a task whose cards by (its owner, a lead of its project
// or an admin) released.
func ReleasedReason(by string) string { return releasedPrefix + by }

// lostReason is the reason a task ends failed when its node is lost.
func lostReason(hostname string, lastSeen time.Time) string {
	return fmt.Sprintf("node %s lost: last seen %s", hostname, lastSeen.Format(time.RFC3339))
}

// TaskEnding is how a task in state, taken for reason, ended; "" while it has not ended.
func TaskEnding(state, reason string) string {
	switch state {
	case TaskSucceeded:
		return EndFinished
	case TaskFailed:
		if strings.HasPrefix(reason, "node ") && strings.Contains(reason, " lost: last seen ") {
			return EndLost
		}
		return EndFailed
	case TaskReclaimed:
		if strings.HasPrefix(reason, releasedPrefix) {
			return EndReleased
		}
		return EndReclaimed
	case TaskTimedOut:
		return EndTimedOut
	case TaskCancelled:
		return EndCancelled
	}
	return ""
}
