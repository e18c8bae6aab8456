package tasks

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"kashi/phrase"
)

// TaskReason reads a reason the store recorded with a task's change of state as phrases: a
// list the scaling loop encoded (a reclaim's, phrase.List.Encode), or one of the store's own
// sentences ("submitted by alice", "exited 3", "max runtime 2h0m0s reached"…) read into its
// catalog code and arguments. ok is false for any other text, which is shown as recorded.
func TaskReason(stored string) (phrase.List, bool) {
	if l, ok := phrase.Decode(stored); ok {
		return l, true
	}
	if l, ok := attemptReason(stored); ok {
		return l, true
	}
	var p phrase.Phrase
	switch {
	case stored == "process started":
		p = phrase.New("process_started")
	case stored == "process running on its node":
		p = phrase.New("process_running")
	case stored == "data marked ready":
		p = phrase.New("data_marked_ready")
	case stored == "data not ready":
		p = phrase.New("data_not_ready")
	case strings.HasPrefix(stored, "placed"): // "placed on [3 4]": the node ids say nothing to people
		p = phrase.New("placed")
	case strings.HasPrefix(stored, "submitted by "):
		p = phrase.New("submitted_by", phrase.S(strings.TrimPrefix(stored, "submitted by ")))
	case strings.HasPrefix(stored, "cancelled by "):
		p = phrase.New("cancelled_by", phrase.S(strings.TrimPrefix(stored, "cancelled by ")))
	case strings.HasPrefix(stored, "released by "):
		p = phrase.New("released_by", phrase.S(strings.TrimPrefix(stored, "released by ")))
	case strings.HasPrefix(stored, "exited "):
		p = phrase.New("exited", phrase.S(strings.TrimPrefix(stored, "exited ")))
	case stored == "failed to start: its owner has no Unix account":
		p = phrase.New("no_account_set")
	case stored == "failed to start: it would run as root, which its pool does not allow":
		p = phrase.New("root_refused")
	case stored == "stopped: its pod was deleted outside Kashi":
		p = phrase.New("pod_deleted")
	case strings.HasPrefix(stored, "failed to start: no Unix account ") && strings.HasSuffix(stored, " on its node"):
		p = phrase.New("no_account", phrase.S(strings.TrimSuffix(strings.TrimPrefix(stored, "failed to start: no Unix account "), " on its node")))
	case strings.HasPrefix(stored, "failed to start: "):
		p = phrase.New("failed_to_start", phrase.S(strings.TrimPrefix(stored, "failed to start: ")))
	default:
		return sentenceWithValues(stored)
	}
	return phrase.Of(p), true
}

// sentenceWithValues reads the store's sentences that carry a number, a duration or a time:
// a memory limit passed, a runtime stop and a lost node's failure.
func sentenceWithValues(stored string) (phrase.List, bool) {
	if rest, ok := strings.CutPrefix(stored, "max runtime "); ok && strings.HasSuffix(rest, " reached") {
		if d, err := time.ParseDuration(strings.TrimSuffix(rest, " reached")); err == nil {
			return phrase.Of(phrase.New("max_runtime_reached", phrase.Dur(d))), true
		}
	}
	if rest, ok := strings.CutPrefix(stored, "stopped: used more host memory than its limit of "); ok {
		if mib, err := strconv.Atoi(strings.TrimSuffix(rest, " MiB")); err == nil {
			return phrase.Of(phrase.New("memory_limit", phrase.N(mib))), true
		}
	}
	if rest, ok := strings.CutPrefix(stored, "node "); ok {
		if host, seen, ok := strings.Cut(rest, " lost: last seen "); ok {
			return phrase.Of(phrase.New("node_lost", phrase.S(host), phrase.S(seen))), true
		}
		var rank int
		if host, r, ok := strings.Cut(rest, " (rank "); ok && strings.HasSuffix(r, ") lost") {
			if n, _ := fmt.Sscanf(r, "%d) lost", &rank); n == 1 {
				return phrase.Of(phrase.New("node_rank_lost", phrase.S(host), phrase.N(rank))), true
			}
		}
	}
	return nil, false
}

// attemptReason reads the store's sentences of reruns: a task queued again for its next
// attempt after what ended the last ("requeued for attempt 2 of 3: node n1 lost: …"), and
// one that ended for a cause that would have rerun it without an attempt left ("…; no
// attempt left (3 of 3)"); what ended it is read as any reason, and must be known.
func attemptReason(stored string) (phrase.List, bool) {
	var a, of int
	if rest, ok := strings.CutPrefix(stored, "requeued for attempt "); ok {
		head, why, ok := strings.Cut(rest, ": ")
		if n, _ := fmt.Sscanf(head, "%d of %d", &a, &of); !ok || n != 2 {
			return nil, false
		}
		inner, ok := TaskReason(why)
		return append(phrase.Of(phrase.New("rerun_queued", phrase.N(a), phrase.N(of))), inner...), ok
	}
	i := strings.LastIndex(stored, "; no attempt left (")
	if i < 0 {
		return nil, false
	}
	if n, _ := fmt.Sscanf(stored[i:], "; no attempt left (%d of %d)", &a, &of); n != 2 {
		return nil, false
	}
	inner, ok := TaskReason(stored[:i])
	return append(inner, phrase.New("no_attempt_left", phrase.N(a), phrase.N(of))), ok
}

// TaskReasonText is a reason the store recorded with a task's change of state in l's
// language (TaskReason); text it cannot read is shown as recorded.
func TaskReasonText(l phrase.Locale, stored string) string {
	if list, ok := TaskReason(stored); ok {
		return l.Say(list)
	}
	return stored
}
