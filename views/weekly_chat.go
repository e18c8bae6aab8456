package views

import (
	"strings"
	"time"

	"kashi/phrase"
)

// WeeklyChat is one project's weekly report as its chat message says it: held against
// effective card time, idle hours, the tasks that left cards idle most and the estimates
// that missed most, and a link to the report page.
type WeeklyChat struct {
	Project, Week string
	// From and To are the week's first day and the next Monday, in the billing time zone.
	From, To                    time.Time
	NominalS, EffectiveS, IdleS int64
	TopIdle                     []WeeklyChatTask
	Misses                      []WeeklyChatTask
	// Link is the report page of the week.
	Link string
}

// WeeklyChatTask is a task the message names: its idle card time, or its estimate against
// its actual card time.
type WeeklyChatTask struct {
	TaskID                     int64
	Task, Owner                string
	IdleS, EstimatedS, ActualS int64
}

// WeeklyReportChat words a project's weekly report for the chat channels in l's language.
func WeeklyReportChat(l phrase.Locale, d WeeklyChat) (title, text string) {
	title = l.T("weekly.chat.title", d.Project, d.Week)
	paras := []string{l.T("weekly.chat.summary", d.Week, weekRange(d.From, d.To), hoursText(d.NominalS), hoursText(d.EffectiveS),
		l.Percent(share(d.EffectiveS, d.NominalS)), hoursText(d.IdleS))}
	list := func(head string, line func(WeeklyChatTask) string, ts []WeeklyChatTask) {
		if len(ts) == 0 {
			return
		}
		lines := []string{head}
		for _, t := range ts {
			lines = append(lines, l.T("weekly.chat.task", t.TaskID, t.Task, t.Owner, line(t)))
		}
		paras = append(paras, strings.Join(lines, "\n"))
	}
	list(l.T("weekly.chat.idle_head"), func(t WeeklyChatTask) string {
		return l.T("weekly.chat.idle_line", hoursText(t.IdleS))
	}, d.TopIdle)
	list(l.T("weekly.chat.miss_head"), func(t WeeklyChatTask) string {
		return l.T("weekly.chat.miss_line", hoursText(t.EstimatedS), hoursText(t.ActualS))
	}, d.Misses)
	paras = append(paras, l.T("weekly.chat.link", d.Link))
	return title, strings.Join(paras, "\n\n")
}
