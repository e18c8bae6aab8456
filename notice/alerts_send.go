package notice

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"kashi/models"
	"kashi/notify"
	"kashi/phrase"
)

// AlertStore is what SendAlerts needs of models.Store.
type AlertStore interface {
	Alerts(ctx context.Context, f models.AlertFilter) ([]models.Alert, error)
	MarkAlertSent(ctx context.Context, id int64, now time.Time) error
}

// alertBatch caps the alerts one SendAlerts pass posts.
const alertBatch = 100

// SendAlerts posts the alerts the channels were not told of yet to every channel, one message
// per kind for each pass (every minute): a kind with one alert gets AlertMessage, a kind with
// several one message listing each (AlertGroupMessage), so a burst of per-task memory alerts
// is one message, not one each. Kinds go in the order of their oldest alert. A message is
// marked sent once every channel took it; a channel that fails is logged and the alerts stay
// unsent, so the next pass tries again (the channels that took them then see them twice:
// better twice than never). With no channels it does nothing. It returns how many alerts were
// sent; the error is the store's. Messages are written in l, the installation's language (a
// chat channel is shared by people who chose different languages on the pages), their times
// in loc (the --time-zone).
func SendAlerts(ctx context.Context, store AlertStore, channels []notify.Channel, l phrase.Locale, loc *time.Location, now time.Time, log *slog.Logger) (int, error) {
	if len(channels) == 0 {
		return 0, nil
	}
	if log == nil {
		log = slog.Default()
	}
	alerts, err := store.Alerts(ctx, models.AlertFilter{UnsentOnly: true, Limit: alertBatch})
	if err != nil {
		return 0, err
	}
	slices.Reverse(alerts) // oldest first
	var kinds []string
	byKind := map[string][]models.Alert{}
	for _, a := range alerts {
		if _, ok := byKind[a.Kind]; !ok {
			kinds = append(kinds, a.Kind)
		}
		byKind[a.Kind] = append(byKind[a.Kind], a)
	}
	sent := 0
	for _, kind := range kinds {
		group := byKind[kind]
		m := AlertMessage(group[0], l, loc)
		if len(group) > 1 {
			m = AlertGroupMessage(group, l, loc)
		}
		ok := true
		for _, ch := range channels {
			if err := ch.Send(ctx, m); err != nil {
				ok = false
				log.Warn("alerts not delivered", "kind", kind, "alerts", len(group), "channel", fmt.Sprint(ch), "err", err)
			}
		}
		if !ok {
			continue
		}
		for _, a := range group {
			if err := store.MarkAlertSent(ctx, a.ID, now); err != nil {
				return sent, err
			}
			sent++
		}
	}
	return sent, nil
}

// AlertGroupMessage is the chat message of several alerts of one kind in l: the gravest
// severity, the kind and how many, then a line per alert with its sentence (which names what
// it is about; resolved ones marked), linking to the alerts page; its time is the latest
// alert's, in loc.
func AlertGroupMessage(alerts []models.Alert, l phrase.Locale, loc *time.Location) notify.Message {
	loc = locOr(loc)
	sev, last, resolved := models.SeverityInfo, time.Time{}, true
	lines := make([]string, 0, len(alerts))
	for _, a := range alerts {
		if severityRank(a.Severity) > severityRank(sev) {
			sev = a.Severity
		}
		if a.LastAt.After(last) {
			last = a.LastAt
		}
		line := l.T("alert.chat.group_line", l.AlertSentence(a.Code, a.AlertParams(), a.Message))
		resolved = resolved && a.ResolvedAt != nil
		if a.ResolvedAt != nil {
			line = l.T("alert.chat.group_resolved", l.AlertSentence(a.Code, a.AlertParams(), a.Message))
		}
		lines = append(lines, line)
	}
	return notify.Message{Kind: alerts[0].Kind, Title: l.T("alert.chat.group_title", l.Severity(sev), l.AlertKind(alerts[0].Kind), len(alerts)),
		Text: strings.Join(lines, "\n"), At: last.In(loc), Link: "/alerts", LinkText: l.T("chat.link.alerts"), Resolved: resolved}
}

// severityRank orders severities: info, warning (and anything else), critical.
func severityRank(sev string) int {
	switch sev {
	case models.SeverityCritical:
		return 2
	case models.SeverityInfo:
		return 0
	}
	return 1
}

// AlertMessage is the chat message of an alert in l: its severity, kind and subject, its
// sentence, how often it was raised, and when it was resolved, its times in loc with the zone
// named, linking to the alerts page.
func AlertMessage(a models.Alert, l phrase.Locale, loc *time.Location) notify.Message {
	loc = locOr(loc)
	stamp := func(t time.Time) string { return t.In(loc).Format("2006-01-02 15:04 MST") }
	subject := l.AlertSubject(a.Subject, a.Pool, "")
	title := l.T("alert.chat.title", l.Severity(a.Severity), l.AlertKind(a.Kind), subject)
	text := l.AlertSentence(a.Code, a.AlertParams(), a.Message)
	if a.Count > 1 {
		text += " " + l.T("alert.chat.repeated", a.Count, stamp(a.At))
	}
	if a.ResolvedAt != nil {
		title = l.T("alert.chat.resolved_title", l.AlertKind(a.Kind), subject)
		text += " " + l.T("alert.chat.resolved_at", stamp(*a.ResolvedAt))
	}
	return notify.Message{Kind: a.Kind, Title: title, Text: text, At: a.LastAt.In(loc), Link: "/alerts", LinkText: l.T("chat.link.alerts"),
		Resolved: a.ResolvedAt != nil}
}
