package notice

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"kashi/models"
	"kashi/notify"
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
// alerts were sent; the error is the store's. Times are written in loc (the --time-zone).
func SendAlerts(ctx context.Context, store AlertStore, channels []notify.Channel, loc *time.Location, now time.Time, log *slog.Logger) (int, error) {
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
		m := AlertMessage(a, loc)
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

// AlertMessage is the chat message of an alert, its times in loc with the zone named.
func AlertMessage(a models.Alert, loc *time.Location) notify.Message {
	loc = locOr(loc)
	text := a.Message
	if a.Count > 1 {
		text += fmt.Sprintf(" (raised %d times since %s)", a.Count, notify.Stamp(a.At.In(loc)))
	}
	title := "Alert: " + a.Kind + " · " + a.Subject
	if a.ResolvedAt != nil {
		title = "Resolved: " + a.Kind + " · " + a.Subject
		text += fmt.Sprintf(" Resolved at %s.", notify.Stamp(a.ResolvedAt.In(loc)))
	}
	return notify.Message{Kind: a.Kind, Title: title, Text: text, At: a.LastAt.In(loc)}
}
