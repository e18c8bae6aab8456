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

// AlertStore is what SendAlerts needs of models.Store.
type AlertStore interface {
	Alerts(ctx context.Context, f models.AlertFilter) ([]models.Alert, error)
	MarkAlertSent(ctx context.Context, id int64, now time.Time) error
}

// alertBatch caps the alerts one SendAlerts pass posts.
const alertBatch = 100

// SendAlerts posts each alert the channels were not told of yet to every channel, oldest
// first, and marks it sent once every channel took it. A channel that fails is logged and the
// alert stays unsent, so the next pass tries again (the channels that took it then see it
// twice: better twice than never). With no channels it does nothing. It returns how many
// alerts were sent; the error is the store's. Messages are written in l, the installation's
// language (a chat channel is shared by people who chose different languages on the pages),
// their times in loc (the --time-zone).
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
	sent := 0
	for _, a := range alerts {
		m := AlertMessage(a, l, loc)
		ok := true
		for _, ch := range channels {
			if err := ch.Send(ctx, m); err != nil {
				ok = false
				log.Warn("alert not delivered", "alert", a.ID, "kind", a.Kind, "channel", fmt.Sprint(ch), "err", err)
			}
		}
		if !ok {
			continue
		}
		if err := store.MarkAlertSent(ctx, a.ID, now); err != nil {
			return sent, err
		}
		sent++
	}
	return sent, nil
}

// AlertMessage is the chat message of an alert in l: its severity, kind and subject, its
// sentence, how often it was raised, and when it was resolved, its times in loc with the zone
// named.
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
	return notify.Message{Kind: a.Kind, Title: title, Text: text, At: a.LastAt.In(loc)}
}
