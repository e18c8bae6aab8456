package main

import (
	"context"
	"strings"
	"time"

	"kashi/billing"
	"kashi/models"
	"kashi/notice"
	"kashi/phrase"
	"kashi/schedule"
	"kashi/views"
)

// The weekly report's sending.
const (
	// defaultWeeklyReport sends it on Mondays at 09:00.
	defaultWeeklyReport = "0 9 * * 1"
	// weeklyReportOff, as --weekly-report, sends none.
	weeklyReportOff = "off"
	// weeklyEvery is how often the loop looks whether it is due.
	weeklyEvery = 5 * time.Minute
	// weeklyLate is how late after its time a send still goes out (a server down at the
	// time sends when it is back within a day; later the week is skipped).
	weeklyLate = 24 * time.Hour
	// weeklyTasks is how many idle tasks and estimate misses a message names.
	weeklyTasks = 3
)

// weeklyPolicy is when the weekly report goes out: at the planned times of s.
func weeklyPolicy(s schedule.Schedule, loc *time.Location) notice.WeeklyPolicy {
	return notice.WeeklyPolicy{Late: weeklyLate, Location: loc, Planned: func(after time.Time) time.Time {
		if next := s.Next(after, 1); len(next) == 1 {
			return next[0]
		}
		return time.Time{}
	}}
}

// weeklyReports makes each week's messages from billing's report of the week (all
// projects), one per project that held cards, worded through the catalogs in lang, each
// linking to the report page under publicURL.
func weeklyReports(src billing.Source, lang, publicURL string) notice.WeeklyReports {
	l := phrase.Locale{Lang: lang}
	return func(ctx context.Context, week string, now time.Time) ([]notice.WeeklyMessage, error) {
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
		link := strings.TrimSuffix(publicURL, "/") + "/reports?week=" + week
		return weeklyMessages(l, r, ps, loc, link), nil
	}
}

// weeklyMessages words r for each project of ps that held cards in the week, its dates in
// loc.
func weeklyMessages(l phrase.Locale, r billing.Report, ps []models.Project, loc *time.Location, link string) []notice.WeeklyMessage {
	ids := make(map[string]int64, len(ps))
	for _, p := range ps {
		ids[p.Name] = p.ID
	}
	var out []notice.WeeklyMessage
	for _, u := range r.Projects {
		id, ok := ids[u.Key]
		if !ok || u.NominalS == 0 {
			continue
		}
		d := views.WeeklyChat{Project: u.Key, Week: r.Week, From: r.From.In(loc), To: r.To.In(loc), NominalS: u.NominalS,
			EffectiveS: u.EffectiveS, IdleS: u.Idle, Link: link}
		for _, t := range r.TopIdle {
			if t.Project == u.Key && len(d.TopIdle) < weeklyTasks {
				d.TopIdle = append(d.TopIdle, views.WeeklyChatTask{TaskID: t.TaskID, Task: t.Task, Owner: t.Owner, IdleS: t.Idle})
			}
		}
		for _, m := range r.Misses {
			if m.Project == u.Key && len(d.Misses) < weeklyTasks {
				d.Misses = append(d.Misses, views.WeeklyChatTask{TaskID: m.TaskID, Task: m.Task, Owner: m.Owner,
					EstimatedS: m.EstimatedS, ActualS: m.ActualS})
			}
		}
		title, text := views.WeeklyReportChat(l, d)
		out = append(out, notice.WeeklyMessage{ProjectID: id, Project: u.Key, Title: title, Text: text})
	}
	return out
}
