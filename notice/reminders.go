package notice

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"kashi/models"
	"kashi/notify"
	"kashi/phrase"
)

// ReminderPolicy says when quotas remind their projects (额度提醒进流程).
type ReminderPolicy struct {
	// EndDays are the days before a quota's end that remind, e.g. 30, 14, 7.
	EndDays []int
	// BudgetPcts are the shares of the monthly budget used that remind, e.g. 80, 100.
	BudgetPcts []int
	// Location is where months begin (the billing time zone).
	Location *time.Location
}

// DefaultReminderPolicy reminds 30, 14 and 7 days before the end and at 80% and 100% of the
// budget.
func DefaultReminderPolicy(loc *time.Location) ReminderPolicy {
	return ReminderPolicy{EndDays: []int{30, 14, 7}, BudgetPcts: []int{80, 100}, Location: loc}
}

// Reminder is one reminder due for a project. Key makes it once-only.
type Reminder struct {
	ProjectID int64
	Key       string
	Kind      string
	Text      string
}

// Reminders returns the reminders due at now: for each quota in force, the nearest end-date
// threshold reached (so 10 days before the end gives the 14-day reminder, once) and the
// highest budget share reached this month; a quota's own reminders replace the policy's.
// Each text is worded in l, the installation's language, and names its project (names: by
// id), so that a lead of several projects can tell them apart. Pure: the caller sends them
// once by Key.
func Reminders(quotas []models.Quota, usage map[int64]map[string]int64, names map[int64]string, l phrase.Locale, pol ReminderPolicy, now time.Time) []Reminder {
	var out []Reminder
	month := models.MonthStart(now, pol.Location).Format("2006-01")
	days := slices.Sorted(slices.Values(pol.EndDays))
	pcts := slices.Sorted(slices.Values(pol.BudgetPcts))
	for _, q := range quotas {
		if !q.Active(now) {
			continue
		}
		spec := q.Spec
		if spec == "" {
			spec = l.T("reminder.all_specs")
		}
		project := names[q.ProjectID]
		if project == "" {
			project = fmt.Sprintf("#%d", q.ProjectID)
		}
		days, pcts := days, pcts
		// A quota's own reminders replace the policy's.
		if own, ownPcts := q.Reminders(); own != nil || ownPcts != nil {
			if own != nil {
				days = own
			}
			if ownPcts != nil {
				pcts = ownPcts
			}
		}
		left := q.EndsAt.Sub(now)
		for _, d := range days {
			if left <= time.Duration(d)*24*time.Hour {
				out = append(out, Reminder{ProjectID: q.ProjectID, Kind: "quota-ends",
					Key:  fmt.Sprintf("quota-ends:%d:%s:%d", q.ID, q.EndsAt.Format("2006-01-02"), d),
					Text: l.T("reminder.quota_ends", project, spec, q.EndsAt.In(locOr(pol.Location)).Format("2006-01-02"), d)})
				break
			}
		}
		used := usage[q.ProjectID][q.Spec]
		if q.Spec == "" {
			used = 0
			for _, s := range usage[q.ProjectID] {
				used += s
			}
		}
		budget := q.BudgetCardHours * 3600
		for i := len(pcts) - 1; i >= 0; i-- {
			if budget > 0 && used*100 >= int64(pcts[i])*budget {
				out = append(out, Reminder{ProjectID: q.ProjectID, Kind: "budget",
					Key:  fmt.Sprintf("budget:%d:%s:%d", q.ID, month, pcts[i]),
					Text: l.T("reminder.budget", project, spec, pcts[i], used/3600, q.BudgetCardHours)})
				break
			}
		}
	}
	return out
}

func locOr(loc *time.Location) *time.Location {
	if loc == nil {
		return time.UTC
	}
	return loc
}

// ReminderStore is what the reminder loop needs of models.Store.
type ReminderStore interface {
	Quotas(ctx context.Context, projectID int64) ([]models.Quota, error)
	UsageSeconds(ctx context.Context, since, now time.Time) (map[int64]map[string]int64, error)
	ProjectNames(ctx context.Context) (map[int64]string, error)
	NotifyProject(ctx context.Context, projectID int64, key, kind, msg string, now time.Time) (bool, error)
}

// SendReminders delivers the due reminders in-app (once per key) to the project's leads and
// members and, the first time, to the channels, worded in l, the installation's language,
// linking to the projects page. It returns how many were new.
func SendReminders(ctx context.Context, store ReminderStore, channels []notify.Channel, l phrase.Locale, pol ReminderPolicy, now time.Time, log *slog.Logger) (int, error) {
	quotas, err := store.Quotas(ctx, 0)
	if err != nil || len(quotas) == 0 {
		return 0, err
	}
	usage, err := store.UsageSeconds(ctx, models.MonthStart(now, pol.Location), now)
	if err != nil {
		return 0, err
	}
	names, err := store.ProjectNames(ctx)
	if err != nil {
		return 0, err
	}
	fresh := 0
	for _, r := range Reminders(quotas, usage, names, l, pol, now) {
		isNew, err := store.NotifyProject(ctx, r.ProjectID, r.Key, r.Kind, r.Text, now)
		if err != nil {
			return fresh, err
		}
		if !isNew {
			continue
		}
		fresh++
		m := notify.Message{Kind: r.Kind, Project: names[r.ProjectID], Title: l.T("reminder.chat.title", names[r.ProjectID], reminderKind(l, r.Kind)),
			Text: r.Text, At: now.In(locOr(pol.Location)), Link: "/projects", LinkText: l.T("chat.link.projects")}
		for _, ch := range channels {
			if err := ch.Send(ctx, m); err != nil {
				log.Warn("reminder not delivered", "channel", fmt.Sprintf("%T", ch), "err", err)
			}
		}
	}
	return fresh, nil
}

// reminderKind names a reminder's kind in l, as the notifications page does.
func reminderKind(l phrase.Locale, kind string) string {
	if kind == "budget" {
		return l.T("notes.kind.budget")
	}
	return l.T("notes.kind.quota_ends")
}
