package agent

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"strconv"
	"strings"
	"syscall"

	"kashi/api"
)

// runAs is the Unix account a task runs as on this node, as the node's user database gave
// it when the task started.
type runAs struct {
	User   string   `json:"user"`
	UID    uint32   `json:"uid"`
	GID    uint32   `json:"gid"`
	Groups []uint32 `json:"groups,omitempty"`
	Home   string   `json:"home,omitempty"`
}

// StartRefused is why a task may not start on this node as its assignment says: the node has
// no account of that name, or the task would run as root where its pool does not allow it.
type StartRefused struct {
	// Cause is api.CauseNoAccount or api.CauseRootRefused; Account the account looked for.
	Cause, Account string
}

func (e *StartRefused) Error() string {
	switch {
	case e.Cause == api.CauseRootRefused:
		return fmt.Sprintf("account %s is root (uid 0), and the task's pool does not allow tasks to run as root", e.Account)
	case e.Account == "":
		return "the task's owner has no Unix account, and its pool does not let tasks run as the agent's own user"
	}
	return fmt.Sprintf("this node has no Unix account %s", e.Account)
}

// lookupRunAs resolves whom a's task runs as here: its account, with its uid, gid and groups
// from the node's user database (NSS: files, LDAP…), or nil for the agent's own user, which
// only a pool that allows root allows. A *StartRefused says why the task may not start.
func lookupRunAs(a api.Assignment) (*runAs, error) {
	if a.RunAsUser == "" {
		if !a.AllowRoot {
			return nil, &StartRefused{Cause: api.CauseNoAccount}
		}
		return nil, nil
	}
	u, err := user.Lookup(a.RunAsUser)
	if _, unknown := errors.AsType[user.UnknownUserError](err); unknown {
		return nil, &StartRefused{Cause: api.CauseNoAccount, Account: a.RunAsUser}
	}
	if err != nil {
		return nil, fmt.Errorf("look up account %s: %w", a.RunAsUser, err)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("account %s: %w", a.RunAsUser, err)
	}
	if uid == 0 && !a.AllowRoot {
		return nil, &StartRefused{Cause: api.CauseRootRefused, Account: a.RunAsUser}
	}
	ra := &runAs{User: u.Username, UID: uint32(uid), GID: uint32(gid), Home: u.HomeDir}
	ids, err := u.GroupIds()
	if err != nil {
		return nil, fmt.Errorf("groups of account %s: %w", a.RunAsUser, err)
	}
	for _, s := range ids {
		g, err := strconv.ParseUint(s, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("groups of account %s: %w", a.RunAsUser, err)
		}
		ra.Groups = append(ra.Groups, uint32(g))
	}
	return ra, nil
}

// credential is how a task's process takes the account: nil when it runs as the agent's own
// user, or when the account is the agent's own and the agent is not root (which may not
// change its groups).
func (ra *runAs) credential() *syscall.Credential {
	if ra == nil || os.Geteuid() != 0 && int(ra.UID) == os.Geteuid() {
		return nil
	}
	return &syscall.Credential{Uid: ra.UID, Gid: ra.GID, Groups: ra.Groups}
}

// env is the environment of a process run as the account: base without what belongs to the
// agent (withoutAgentSecrets), with HOME, USER and LOGNAME of the account.
func (ra *runAs) env(base []string) []string {
	out := withoutAgentSecrets(base)
	if ra != nil {
		out = append(out, "HOME="+ra.Home, "USER="+ra.User, "LOGNAME="+ra.User)
	}
	return out
}

// withoutAgentSecrets is env without the agent's join token, which no task sees.
func withoutAgentSecrets(env []string) []string {
	out := make([]string, 0, len(env)+3)
	for _, kv := range env {
		if !strings.HasPrefix(kv, agentSecretEnv+"=") {
			out = append(out, kv)
		}
	}
	return out
}

// agentSecretEnv is the agent's environment variable a task never sees: the join token.
const agentSecretEnv = "KASHI_JOIN_TOKEN"

// chown gives path to the account; a task of the agent's own user leaves it as it is.
func (ra *runAs) chown(path string) error {
	if ra == nil {
		return nil
	}
	return os.Lchown(path, int(ra.UID), int(ra.GID))
}

// userFlags are a container runtime's flags that run the container's processes as the
// account: --user uid:gid and --group-add for each supplementary group. None for a task of
// the agent's own user.
func (ra *runAs) userFlags() []string {
	if ra == nil {
		return nil
	}
	out := []string{"--user", strconv.FormatUint(uint64(ra.UID), 10) + ":" + strconv.FormatUint(uint64(ra.GID), 10)}
	for _, g := range ra.Groups {
		if g != ra.GID {
			out = append(out, "--group-add", strconv.FormatUint(uint64(g), 10))
		}
	}
	return out
}

// limits are a task's memory and CPU limits on this node: its assignment's, or where its pool
// sets none (0), the node's share, the node's memory or CPUs times the task's GPUs over the
// node's GPUs.
func (a *Agent) limits(as api.Assignment) (memoryMiB, cpuMillis int64) {
	gpus, of := int64(len(as.GPUUUIDs)), int64(len(a.registration.GPUs))
	memoryMiB, cpuMillis = as.MemoryLimitMiB, as.CPULimitMillis
	if gpus == 0 || of == 0 {
		return memoryMiB, cpuMillis
	}
	if memoryMiB == 0 {
		memoryMiB = a.cfg.HostMemoryMiB * gpus / of
	}
	if cpuMillis == 0 {
		cpuMillis = int64(a.cfg.HostCPUs) * 1000 * gpus / of
	}
	return memoryMiB, cpuMillis
}

// hostMemoryMiB is the node's memory, MemTotal of /proc/meminfo; 0 when it cannot be read.
func hostMemoryMiB() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kib, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kib >> 10
		}
	}
	return 0
}
