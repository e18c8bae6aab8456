package notice

import (
	"context"
	"strings"
	"time"

	"kashi/billing"
	"kashi/models"
	"kashi/phrase"
	"kashi/pilot"
)

// The weekly report's defaults.
const (
	// weeklyLate is how late after its time a send still goes out (a server down at the
	// time sends when it is back within a day; later the week is skipped).
	weeklyLate = 24 * time.Hour
	// weeklyTasks is how many idle tasks and estimate misses a message names.
	weeklyTasks = 3
)

// Cron is a cron expression's planned times (schedule.Schedule): the first n after from.
type Cron interface {
	Next(from time.Time, n int) []time.Time
}

// DefaultWeeklyPolicy sends the weekly report at the planned times of c, up to a day late,
// with weeks beginning in loc.
func DefaultWeeklyPolicy(c Cron, loc *time.Location) WeeklyPolicy {
	return WeeklyPolicy{Late: weeklyLate, Location: loc, Planned: func(after time.Time) time.Time {
		if next := c.Next(after, 1); len(next) == 1 {
			return next[0]
		}
		return time.Time{}
	}}
}

// BillingReports makes each week's messages from billing's report of the week (all
// projects), one per project that held cards, worded in l, the installation's language,
// each linking to the report page under publicURL; each also lists the week's pool setting
// and price changes with what each saved (pilot.WeekChanges), linking to their pages.
func BillingReports(src pilot.ChangeSource, l phrase.Locale, publicURL string) WeeklyReports {
	return func(ctx context.Context, week string, now time.Time) ([]WeeklyMessage, error) {
		r, err := billing.WeekReport(ctx, src, week, nil, now)
		if err != nil {
			return nil, err
		}
		ps, err := src.Projects(ctx)
		if err != nil {
			return nil, err
		}
		loc, err := billing.Location(ctx, src)
		if err != nil {
			return nil, err
		}
		changes, err := pilot.WeekChanges(ctx, src, pilot.MeasureChange, r.From, r.To, now)
		if err != nil {
			return nil, err
		}
		base := strings.TrimSuffix(publicURL, "/")
		msgs := weeklyMessages(l, r, ps, loc, base+"/reports?week="+week, weekChanges(changes, base))
		return msgs, nil
	}
}

// weeklyMessages words r for each project of ps that held cards in the week, its dates in
// loc, with the week's setting changes.
func weeklyMessages(l phrase.Locale, r billing.Report, ps []models.Project, loc *time.Location, link string, changes []weeklyChange) []WeeklyMessage {
	ids := make(map[string]int64, len(ps))
	for _, p := range ps {
		ids[p.Name] = p.ID
	}
	var out []WeeklyMessage
	for _, u := range r.Projects {
		id, ok := ids[u.Key]
		if !ok || u.NominalS == 0 {
			continue
		}
		d := weeklyChat{Project: u.Key, Week: r.Week, From: r.From.In(loc), To: r.To.In(loc), NominalS: u.NominalS,
			EffectiveS: u.EffectiveS, IdleS: u.Idle, Link: link, Changes: changes}
		for _, t := range r.TopIdle {
			if t.Project == u.Key && len(d.TopIdle) < weeklyTasks {
				d.TopIdle = append(d.TopIdle, weeklyChatTask{TaskID: t.TaskID, Task: t.Task, Owner: t.Owner, IdleS: t.Idle})
			}
		}
		for _, g := range r.Reruns {
			if g.Project == u.Key {
				d.RerunS, d.RerunTasks, d.RerunFen = g.NominalS, g.Runs, g.CostFen
			}
		}
		for _, g := range r.Trials {
			if g.Project == u.Key {
				d.TrialS, d.TrialRuns, d.TrialFen = g.NominalS, g.Runs, g.CostFen
			}
		}
		for _, m := range r.Misses {
			if m.Project == u.Key && len(d.Misses) < weeklyTasks {
				d.Misses = append(d.Misses, weeklyChatTask{TaskID: m.TaskID, Task: m.Task, Owner: m.Owner,
					EstimatedS: m.EstimatedS, ActualS: m.ActualS})
			}
		}
		title, text := d.words(l)
		out = append(out, WeeklyMessage{ProjectID: id, Project: u.Key, Title: title, Text: text, Link: link, LinkText: l.T("chat.link.report")})
	}
	return out
}

// weeklyChat is one project's weekly report as its chat message says it: the project, held
// against effective card time, idle hours, what reruns lost, what trials cost, the tasks that left cards idle
// most and the estimates that missed most, and a link to the report page.
type weeklyChat struct {
	Project, Week string
	// From and To are the week's first day and the next Monday, in the billing time zone.
	From, To                    time.Time
	NominalS, EffectiveS, IdleS int64
	TopIdle                     []weeklyChatTask
	Misses                      []weeklyChatTask
	// RerunS is the card time lost to reruns of the project's RerunTasks tasks, which cost
	// RerunFen; 0 without reruns.
	RerunS, RerunFen int64
	RerunTasks       int
	// TrialS is the card time of the project's TrialRuns trials' runs, which cost TrialFen;
	// 0 without trials.
	TrialS, TrialFen int64
	TrialRuns        int
	// Changes are the pool setting and price changes of the week, oldest first.
	Changes []weeklyChange
	// Link is the report page of the week.
	Link string
}

// weeklyChange is a setting change of the week as the message names it, with its page.
type weeklyChange struct {
	pilot.Change
	Link string
}

// weekChanges are cs linked to their pages under base.
func weekChanges(cs []pilot.Change, base string) []weeklyChange {
	out := make([]weeklyChange, len(cs))
	for i, c := range cs {
		out[i] = weeklyChange{c, base + c.Ref.Path()}
	}
	return out
}

// weeklyChatTask is a task the message names: its idle card time, or its estimate against
// its actual card time.
type weeklyChatTask struct {
	TaskID                     int64
	Task, Owner                string
	IdleS, EstimatedS, ActualS int64
}

// words is the title and text of d's chat message in l. Both name the project: the text is
// also what its people read in-app, where there is no title.
func (d weeklyChat) words(l phrase.Locale) (title, text string) {
	title = l.T("weekly.chat.title", d.Project, d.Week)
	paras := []string{l.T("weekly.chat.summary", d.Project, d.Week, phrase.DayRange(d.From, d.To), phrase.Hours(d.NominalS),
		phrase.Hours(d.EffectiveS), l.Percent(phrase.Share(d.EffectiveS, d.NominalS)), phrase.Hours(d.IdleS))}
	if d.RerunS > 0 {
		paras = append(paras, l.T("weekly.chat.reruns", l.Count("weekly.chat.rerun_tasks", d.RerunTasks), phrase.Hours(d.RerunS),
			billing.FormatFen(d.RerunFen)))
	}
	if d.TrialS > 0 {
		paras = append(paras, l.T("weekly.chat.trials", l.Count("weekly.chat.trial_runs", d.TrialRuns), phrase.Hours(d.TrialS),
			billing.FormatFen(d.TrialFen)))
	}
	list := func(head string, line func(weeklyChatTask) string, ts []weeklyChatTask) {
		if len(ts) == 0 {
			return
		}
		lines := []string{head}
		for _, t := range ts {
			lines = append(lines, l.T("weekly.chat.task", t.TaskID, t.Task, t.Owner, line(t)))
		}
		paras = append(paras, strings.Join(lines, "\n"))
	}
	list(l.T("weekly.chat.idle_head"), func(t weeklyChatTask) string {
		return l.T("weekly.chat.idle_line", phrase.Hours(t.IdleS))
	}, d.TopIdle)
	list(l.T("weekly.chat.miss_head"), func(t weeklyChatTask) string {
		return l.T("weekly.chat.miss_line", phrase.Hours(t.EstimatedS), phrase.Hours(t.ActualS))
	}, d.Misses)
	if len(d.Changes) > 0 {
		loc := d.From.Location()
		lines := []string{l.T("weekly.chat.changes_head")}
		for _, c := range d.Changes {
			lines = append(lines, l.T("weekly.chat.change", c.Name(l), c.At.In(loc).Format("2006-01-02 15:04"), c.Who(l),
				c.Sentence(l, loc), c.Link))
		}
		paras = append(paras, strings.Join(lines, "\n"))
	}
	paras = append(paras, l.T("weekly.chat.link", d.Link))
	return title, strings.Join(paras, "\n\n")
}
