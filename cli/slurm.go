package cli

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"kashi/api"
)

// slurmStates maps Slurm's job state codes and names (squeue -t) to Kashi's task states.
var slurmStates = map[string][]api.TaskState{
	"PD": {api.StateWaitingData, api.StateQueued}, "PENDING": {api.StateWaitingData, api.StateQueued},
	"CF": {api.StateStarting}, "CONFIGURING": {api.StateStarting},
	"R": {api.StateRunning}, "RUNNING": {api.StateRunning},
	"CD": {api.StateSucceeded}, "COMPLETED": {api.StateSucceeded},
	"F": {api.StateFailed}, "FAILED": {api.StateFailed},
	"CA": {api.StateCancelled}, "CANCELLED": {api.StateCancelled},
	"TO": {api.StateTimedOut}, "TIMEOUT": {api.StateTimedOut},
	"PR": {api.StateReclaimed}, "PREEMPTED": {api.StateReclaimed},
}

// slurmCode is Slurm's short code of a Kashi task state (squeue's %t).
func slurmCode(s api.TaskState) string {
	for _, code := range []string{"PD", "CF", "R", "CD", "F", "CA", "TO", "PR"} {
		if slices.Contains(slurmStates[code], s) {
			return code
		}
	}
	return string(s)
}

// parseStates reads a comma-separated list of Kashi's task states or Slurm's codes and names.
func parseStates(v string) ([]string, error) {
	var out []string
	for w := range strings.SplitSeq(v, ",") {
		w = strings.TrimSpace(w)
		if slices.Contains(api.TaskStates(), api.TaskState(strings.ToLower(w))) {
			out = append(out, strings.ToLower(w))
			continue
		}
		states, ok := slurmStates[strings.ToUpper(w)]
		if !ok {
			var names []string
			for _, s := range api.TaskStates() {
				names = append(names, string(s))
			}
			return nil, fmt.Errorf("unknown state %q: one of %s, or Slurm's PD, CF, R, CD, F, CA, TO, PR", w, strings.Join(names, ", "))
		}
		for _, s := range states {
			out = append(out, string(s))
		}
	}
	return slices.Compact(out), nil
}

// listFlag is a flag of comma-separated values; set again, it adds to them.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	for w := range strings.SplitSeq(v, ",") {
		if w = strings.TrimSpace(w); w == "" {
			return fmt.Errorf("empty name in %q", v)
		}
		*l = append(*l, w)
	}
	return nil
}

// slurmTime is sbatch's --time: [D-]HH:MM:SS, MM:SS, MM, D-HH, D-HH:MM; a bare number is
// minutes. A Go duration (6h, 90m) is read too.
var slurmTime = regexp.MustCompile(`^(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?$`)

// parseRuntime reads a runtime limit as sbatch's --time does, or as a Go duration.
func parseRuntime(v string) (time.Duration, error) {
	if d, err := time.ParseDuration(v); err == nil {
		return d, nil
	}
	m := slurmTime.FindStringSubmatch(v)
	if m == nil {
		return 0, fmt.Errorf("%q is neither [D-]HH:MM:SS nor a duration such as 6h", v)
	}
	n := func(s string) time.Duration {
		x, _ := strconv.ParseInt(s, 10, 32)
		return time.Duration(x)
	}
	days := n(m[1]) * 24 * time.Hour
	switch {
	case m[1] != "" && m[3] == "": // D-HH
		return days + n(m[2])*time.Hour, nil
	case m[1] != "" && m[4] == "": // D-HH:MM
		return days + n(m[2])*time.Hour + n(m[3])*time.Minute, nil
	case m[1] != "" || m[4] != "": // [D-]HH:MM:SS
		return days + n(m[2])*time.Hour + n(m[3])*time.Minute + n(m[4])*time.Second, nil
	case m[3] != "": // MM:SS
		return n(m[2])*time.Minute + n(m[3])*time.Second, nil
	}
	return n(m[2]) * time.Minute, nil // MM
}

// runtimeFlag is --time / --max-runtime.
type runtimeFlag struct{ d *time.Duration }

func (r runtimeFlag) String() string {
	if r.d == nil || *r.d == 0 {
		return ""
	}
	return r.d.String()
}

func (r runtimeFlag) Set(v string) error {
	d, err := parseRuntime(v)
	if err != nil {
		return err
	}
	*r.d = d
	return nil
}

// elapsed is squeue's TIME: how long the task has run, [D-]HH:MM:SS or M:SS, "0:00" before
// it started.
func elapsed(now time.Time, t api.Task) string {
	if t.StartedAt == nil {
		return "0:00"
	}
	end := now
	if t.EndedAt != nil {
		end = *t.EndedAt
	}
	return clock(end.Sub(*t.StartedAt))
}

// clock writes d as Slurm does: [D-]HH:MM:SS, or M:SS under an hour.
func clock(d time.Duration) string {
	s := max(int64(d/time.Second), 0)
	days, h, m, sec := s/86400, s/3600%24, s/60%60, s%60
	switch {
	case days > 0:
		return fmt.Sprintf("%d-%02d:%02d:%02d", days, h, m, sec)
	case h > 0:
		return fmt.Sprintf("%d:%02d:%02d", h, m, sec)
	}
	return fmt.Sprintf("%d:%02d", m, sec)
}
