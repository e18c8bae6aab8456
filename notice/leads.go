package notice

import (
	"context"
	"errors"
	"fmt"
	"time"

	"kashi/notify"
)

// LeadsStore is what Leads needs of models.Store.
type LeadsStore interface {
	NotifyLeads(ctx context.Context, projectIDs []int64, key, kind, msg string, now time.Time) (int, error)
}

// Leads tells projects' leads a message someone sent from a page (the pilot review's
// verdicts): each lead in-app once per key, and the chat channels the first time any lead
// is told, so a double click, or a second replica, sends nothing twice.
type Leads struct {
	Store LeadsStore
	// Channels are the --notify channels, their links made absolute under --public-url.
	Channels []notify.Channel
}

// TellLeads sends m to the leads of projectIDs, once per key: in-app (m's text) and, when
// anyone was told for the first time, to the channels. It returns how many leads were told
// for the first time. A channel that fails is an error after the others were tried; the
// in-app notifications stay.
func (ld Leads) TellLeads(ctx context.Context, projectIDs []int64, key string, m notify.Message) (int, error) {
	n, err := ld.Store.NotifyLeads(ctx, projectIDs, key, m.Kind, m.Text, m.At)
	if err != nil || n == 0 {
		return n, err
	}
	var errs []error
	for _, ch := range ld.Channels {
		if err := ch.Send(ctx, m); err != nil {
			errs = append(errs, fmt.Errorf("%v: %w", ch, err))
		}
	}
	return n, errors.Join(errs...)
}
