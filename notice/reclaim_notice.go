package notice

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"kashi/models"
	"kashi/notify"
)

// IdleStore is what IdleTask needs of models.Store.
type IdleStore interface {
	TaskByID(ctx context.Context, id int64) (models.TaskRow, error)
	TaskReclaims(ctx context.Context) (map[int64]models.TaskReclaim, error)
	NotifyUser(ctx context.Context, name, key, kind, msg string, now time.Time) (bool, error)
}

// Notification kinds IdleTask writes.
const (
	KindIdleNotice = "idle-notice"
	KindReclaimed  = "reclaimed"
)

// IdleEvent is what idle reclaim did to a task: gave notice that its cards are idle, or
// stopped it (Reclaimed).
type IdleEvent struct {
	TaskID    int64
	Reclaimed bool
	// Detail is the scaling loop's explanation, "task N of OWNER: …".
	Detail string
}

// IdleTask tells a task's owner what idle reclaim did: that the task's cards are idle and it
// will be stopped unless kept (the owner answers "keep" or "release now" on the notifications
// page), or that it was stopped. The owner gets an in-app notification (once per notice: the
// key carries the notice's time) and the channels a message. An owner without an account gets
// the channels only. now is when the scaling loop acted; messages write times in loc (the
// --time-zone).
func IdleTask(ctx context.Context, store IdleStore, channels []notify.Channel, a IdleEvent, loc *time.Location, now time.Time) error {
	loc = locOr(loc)
	t, err := store.TaskByID(ctx, a.TaskID)
	if err != nil {
		return fmt.Errorf("notice: idle task %d: %w", a.TaskID, err)
	}
	// The detail starts "task N of OWNER: "; the message names the task itself.
	detail := a.Detail
	if _, rest, ok := strings.Cut(detail, ": "); ok && strings.HasPrefix(detail, "task ") {
		detail = rest
	}
	name := fmt.Sprintf("#%d %s (%s, %d GPUs)", t.ID, t.Name, t.Project, t.GPUs)
	var m notify.Message
	var key string
	switch {
	case !a.Reclaimed:
		at := now
		rs, err := store.TaskReclaims(ctx)
		if err != nil {
			return fmt.Errorf("notice: idle task %d: %w", a.TaskID, err)
		}
		if r, ok := rs[t.ID]; ok && r.NoticeAt != nil {
			at = *r.NoticeAt
		}
		key = fmt.Sprintf("%s:%d:%d", KindIdleNotice, t.ID, at.Unix())
		m = notify.Message{Kind: KindIdleNotice, Project: t.Project, At: at.In(loc),
			Title: "Idle GPUs: task " + name,
			Text: fmt.Sprintf("Task %s owned by %s: %s. Keep the cards or release them now on the notifications page (/notifications).",
				name, t.Owner, detail)}
	default:
		key = fmt.Sprintf("%s:%d", KindReclaimed, t.ID)
		m = notify.Message{Kind: KindReclaimed, Project: t.Project, At: now.In(loc),
			Title: "Reclaimed: task " + name,
			Text:  fmt.Sprintf("Task %s owned by %s was stopped and its cards reclaimed: %s.", name, t.Owner, detail)}
	}
	fresh, err := store.NotifyUser(ctx, t.Owner, key, m.Kind, m.Text, m.At)
	switch {
	case errors.Is(err, models.ErrNotFound):
		fresh = true // no account: the channels are all the owner has
	case err != nil:
		return fmt.Errorf("notice: idle task %d: %w", a.TaskID, err)
	}
	if !fresh {
		return nil // told already
	}
	var errs []error
	for _, ch := range channels {
		if err := ch.Send(ctx, m); err != nil {
			errs = append(errs, fmt.Errorf("%v: %w", ch, err))
		}
	}
	return errors.Join(errs...)
}
