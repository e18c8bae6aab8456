package notice

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"kashi/notify"
)

// KindWeeklyReport is the kind of the weekly report's notifications and chat messages.
const KindWeeklyReport = "weekly-report"

// WeeklyPolicy says when the weekly report goes out.
type WeeklyPolicy struct {
	// Planned is the first planned send strictly after t (the --weekly-report cron
	// expression in the zone); zero when there is none.
	Planned func(after time.Time) time.Time
	// Late is how long after its planned time a send still goes out: a server that was
	// down then sends when it is back within Late; later, that week's report is skipped.
	Late time.Duration
	// Location is where weeks begin (ISO weeks, Monday 00:00): a send reports the week
	// before the one it is planned in.
	Location *time.Location
}

// WeeklyMessage is one project's weekly report, worded for the chat channels in the
// installation's language (BillingReports).
type WeeklyMessage struct {
	ProjectID int64
	Project   string
	Title     string
	Text      string
	// Link is the report's page, LinkText its words.
	Link, LinkText string
}

// WeeklyReports makes the week's messages ("2026-W10"), one per project to tell; an error
// leaves the week unsent, to be tried again.
type WeeklyReports func(ctx context.Context, week string, now time.Time) ([]WeeklyMessage, error)

// WeeklyStore is what SendWeeklyReports needs of models.Store.
type WeeklyStore interface {
	WeeklyReportClaimed(ctx context.Context, week string) (bool, error)
	ClaimWeeklyReport(ctx context.Context, week string, now time.Time) (bool, error)
	NotifyProject(ctx context.Context, projectID int64, key, kind, msg string, now time.Time) (bool, error)
}

// DueWeek is the week whose report is due at now: the week before the latest planned send
// that is at most pol.Late old; "" when none is.
func DueWeek(pol WeeklyPolicy, now time.Time) string {
	at := pol.Planned(now.Add(-pol.Late))
	if at.IsZero() || at.After(now) {
		return ""
	}
	y, w := at.In(locOr(pol.Location)).AddDate(0, 0, -7).ISOWeek()
	return fmt.Sprintf("%04d-W%02d", y, w)
}

// SendWeeklyReports sends the weekly report when one is due and not sent yet: it makes the
// messages, claims the week in the store (of several replicas, or after a restart, only the
// claim that made the row sends), then tells each project's leads and members in-app and
// posts each message to every channel. What fails once claimed is logged and not tried
// again: a report sent twice is worse than one missed by one channel. It returns the week sent and
// how many projects were told.
func SendWeeklyReports(ctx context.Context, store WeeklyStore, channels []notify.Channel, pol WeeklyPolicy,
	reports WeeklyReports, now time.Time, log *slog.Logger) (string, int, error) {
	if log == nil {
		log = slog.Default()
	}
	week := DueWeek(pol, now)
	if week == "" {
		return "", 0, nil
	}
	// 1. Sent already: the cheap check first, so a due week costs one query per pass.
	if done, err := store.WeeklyReportClaimed(ctx, week); err != nil || done {
		return "", 0, err
	}
	// 2. Make the messages before claiming: a failure here leaves the week to the next pass.
	msgs, err := reports(ctx, week, now)
	if err != nil {
		return "", 0, err
	}
	// 3. Claim: one replica wins.
	if won, err := store.ClaimWeeklyReport(ctx, week, now); err != nil || !won {
		return "", 0, err
	}
	// 4. Send.
	at := now.In(locOr(pol.Location))
	for _, m := range msgs {
		key := KindWeeklyReport + ":" + week + ":" + strconv.FormatInt(m.ProjectID, 10)
		if _, err := store.NotifyProject(ctx, m.ProjectID, key, KindWeeklyReport, m.Text, now); err != nil {
			log.Error("weekly report not noted in-app", "week", week, "project", m.Project, "err", err)
		}
		cm := notify.Message{Kind: KindWeeklyReport, Project: m.Project, Title: m.Title, Text: m.Text, At: at, Link: m.Link, LinkText: m.LinkText}
		for _, ch := range channels {
			if err := ch.Send(ctx, cm); err != nil {
				log.Warn("weekly report not delivered", "week", week, "project", m.Project, "channel", fmt.Sprint(ch), "err", err)
			}
		}
	}
	log.Info("weekly report sent", "week", week, "projects", len(msgs))
	return week, len(msgs), nil
}
