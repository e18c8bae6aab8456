// Package schedule decides when a task template's schedule runs: the pure part (Parse,
// Decide, Next) apart from the loop that applies it (Runner). A schedule is a cron
// expression in a time zone, with an overlap policy and a start deadline for runs missed
// while the server was down.
package schedule

import (
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// Overlap says what a due run does while the schedule's last run is still active.
type Overlap string

// Overlap policies.
const (
	// OverlapAllow starts the run beside the active one.
	OverlapAllow Overlap = "allow"
	// OverlapSkip skips the run.
	OverlapSkip Overlap = "skip"
	// OverlapReplace cancels the active run, then starts this one.
	OverlapReplace Overlap = "replace"
)

// Overlaps lists the policies in the order forms show them.
var Overlaps = []Overlap{OverlapAllow, OverlapSkip, OverlapReplace}

// Deadline bounds: how late after its planned time a missed run may still start.
const (
	MinDeadline = time.Minute
	MaxDeadline = 7 * 24 * time.Hour
)

// Schedule is a parsed cron expression in its time zone. Build it with Parse.
type Schedule struct {
	spec *cron.SpecSchedule
}

// Parse reads a standard five-field cron expression ("0 22 * * 1-5", or a descriptor such as
// @daily) to be reckoned in the IANA zone (e.g. Asia/Shanghai). A TZ= prefix and @every are
// refused: the zone is given apart, and runs follow the clock, not a delay.
func Parse(expr, zone string) (Schedule, error) {
	loc, err := time.LoadLocation(zone)
	if err != nil || zone == "" || strings.EqualFold(zone, "local") {
		return Schedule{}, fmt.Errorf("%q is not an IANA time zone such as Asia/Shanghai", zone)
	}
	if strings.HasPrefix(expr, "TZ=") || strings.HasPrefix(expr, "CRON_TZ=") {
		return Schedule{}, fmt.Errorf("give the time zone apart, not in the expression")
	}
	parsed, err := cron.ParseStandard(expr)
	if err != nil {
		return Schedule{}, err
	}
	spec, ok := parsed.(*cron.SpecSchedule)
	if !ok {
		return Schedule{}, fmt.Errorf("@every is not a clock schedule; give minute hour day month weekday")
	}
	spec.Location = loc
	return Schedule{spec: spec}, nil
}

// after is the first planned time strictly after t, in UTC; zero when there is none
// within five years (an expression such as "0 0 30 2 *").
func (s Schedule) after(t time.Time) time.Time {
	n := s.spec.Next(t)
	if n.IsZero() {
		return n
	}
	return n.UTC()
}

// Next returns the next n planned times after from, in UTC.
func (s Schedule) Next(from time.Time, n int) []time.Time {
	var out []time.Time
	for t := s.after(from); !t.IsZero() && len(out) < n; t = s.after(t) {
		out = append(out, t)
	}
	return out
}

// Action is what the loop does about a schedule now.
type Action string

// Actions of a Plan.
const (
	// ActionNone: no run is due.
	ActionNone Action = ""
	// ActionSubmit: submit the planned run.
	ActionSubmit Action = "submit"
	// ActionSkip: the last run is still active and the policy skips.
	ActionSkip Action = "skip"
	// ActionReplace: cancel the active last run, then submit.
	ActionReplace Action = "replace"
	// ActionMissed: the due runs are all past their start deadline; none starts.
	ActionMissed Action = "missed"
)

// Policy is how a schedule handles overlap and lateness.
type Policy struct {
	Overlap Overlap
	// Deadline is how late after its planned time a run may still start.
	Deadline time.Duration
}

// Plan is Decide's answer.
type Plan struct {
	Action Action
	// Planned is the run acted on: the latest due run within the deadline, or for
	// ActionMissed the first run missed.
	Planned time.Time
	// Dropped counts the due runs within the deadline that are not started because a later
	// one is: after downtime only the latest starts.
	Dropped int
	// Through is the schedule's new last planned time; runs up to it are settled.
	Through time.Time
}

// Decide says what is due at now for a schedule whose runs are settled through last. At most
// one run starts per call, the latest one due and only within the policy's deadline, so a
// server down for a day starts at most one missed run; lastActive says whether the
// schedule's last submitted task is still waiting or running.
func Decide(s Schedule, p Policy, last, now time.Time, lastActive bool) Plan {
	first := s.after(last)
	if first.IsZero() || first.After(now) {
		return Plan{}
	}
	from := now.Add(-p.Deadline - time.Second) // Next is strictly after: include a run at now-deadline
	if from.Before(last) {
		from = last
	}
	var latest time.Time
	count := 0
	for t := s.after(from); !t.IsZero() && !t.After(now); t = s.after(t) {
		latest, count = t, count+1
	}
	if latest.IsZero() || now.Sub(latest) > p.Deadline {
		return Plan{Action: ActionMissed, Planned: first, Through: UTC(now)}
	}
	plan := Plan{Action: ActionSubmit, Planned: latest, Dropped: count - 1, Through: latest}
	if lastActive {
		switch p.Overlap {
		case OverlapSkip:
			plan.Action = ActionSkip
		case OverlapReplace:
			plan.Action = ActionReplace
		}
	}
	return plan
}

// UTC returns t in UTC with no monotonic reading.
func UTC(t time.Time) time.Time { return t.UTC().Round(0) }
