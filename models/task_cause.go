package models

import "fmt"

// maxMemoryLimitMiB bounds the memory limit a node reports: 1 PiB.
const maxMemoryLimitMiB = 1 << 30

// checkCause refuses a cause the server does not know, an account that is no Unix user name,
// and a memory limit out of range.
func checkCause(r TaskReport) error {
	switch {
	case r.Cause != "" && r.Cause != CauseNoAccount && r.Cause != CauseRootRefused && r.Cause != CauseMemoryLimit && r.Cause != CausePodDeleted:
		return fieldErr("cause", "must be %q, %q, %q or %q", CauseNoAccount, CauseRootRefused, CauseMemoryLimit, CausePodDeleted)
	case r.Account != "" && !ValidUnixAccount(r.Account):
		return fieldErr("account", "must be a Unix user name: 1 to 32 letters, digits, '.', '_' or '-', starting with a letter or '_'")
	case r.Cause == CauseMemoryLimit:
		return checkRange("memory_limit_mib", r.MemoryLimitMiB, 1, maxMemoryLimitMiB)
	}
	return nil
}

// causeReason is the reason a task ends with for the cause its node reported; pages read it
// back into words (views/tasks TaskReason).
func causeReason(r TaskReport) string {
	switch r.Cause {
	case CauseNoAccount:
		if r.Account == "" {
			return reasonNoAccountSet
		}
		return fmt.Sprintf(reasonNoAccount, r.Account)
	case CauseRootRefused:
		return reasonRootRefused
	case CausePodDeleted:
		return reasonPodDeleted
	}
	return fmt.Sprintf(reasonMemoryLimit, r.MemoryLimitMiB)
}

// The reasons of a task that failed for a cause its node reported.
const (
	// reasonNoAccountSet: its owner has no Unix account, and its pool neither uses the
	// owner's name nor lets it run as the agent's user.
	reasonNoAccountSet = "failed to start: its owner has no Unix account"
	// reasonNoAccount: the node has no Unix account of that name (%s).
	reasonNoAccount = "failed to start: no Unix account %s on its node"
	// reasonRootRefused: it would have run as root, and its pool does not allow it.
	reasonRootRefused = "failed to start: it would run as root, which its pool does not allow"
	// reasonMemoryLimit: the kernel stopped it for using more host memory than its limit
	// (%d MiB).
	reasonMemoryLimit = "stopped: used more host memory than its limit of %d MiB"
	// reasonPodDeleted: its pod on a Kubernetes pool was deleted by someone other than Kashi
	// (kubectl delete, an eviction, a drain of the cluster's) while it ran.
	reasonPodDeleted = "stopped: its pod was deleted outside Kashi"
)
