package notice

import (
	"context"
	"errors"
	"fmt"
	"time"

	"kashi/models"
	"kashi/notify"
)

// IdleStore is what IdleTask needs of models.Store.
type IdleStore interface {
	TaskByID(ctx context.Context, id int64) (models.TaskRow, error)
	TaskReclaims(ctx context.Context) (map[int64]models.TaskReclaim, error)
	NotifyOwnerAndLeads(ctx context.Context, taskID int64, key, kind, msg string, now time.Time) (bool, error)
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
	// Detail is the scaling loop's explanation in English, without the task it is about:
	// "cards idle for 31m ≥ 30m; stopped at 09:30 UTC unless kept".
	Detail string
}

// IdleTask tells a task's owner and its project's leads what idle reclaim did: that the
// task's cards are idle and it will be stopped unless kept (the owner or a lead answers "keep"
// or "release now" on the notifications page), or that it was stopped. Each of them with an
// account gets an in-app notification, once each (once per notice: the key carries the
// notice's time), and the channels a message the first time anyone is told; when none of them
// has an account, the channels are all there is and always hear. now is when the scaling loop
// acted; messages write times in loc (the --time-zone).
func IdleTask(ctx context.Context, store IdleStore, channels []notify.Channel, a IdleEvent, loc *time.Location, now time.Time) error {
	loc = locOr(loc)
	t, err := store.TaskByID(ctx, a.TaskID)
	if err != nil {
		return fmt.Errorf("notice: idle task %d: %w", a.TaskID, err)
	}
	detail := a.Detail
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
			Text: fmt.Sprintf("Task %s owned by %s: %s. Its owner or a lead of the project keeps the cards or releases them now on the notifications page (/notifications).",
				name, t.Owner, detail)}
	default:
		key = fmt.Sprintf("%s:%d", KindReclaimed, t.ID)
		m = notify.Message{Kind: KindReclaimed, Project: t.Project, At: now.In(loc),
			Title: "Reclaimed: task " + name,
			Text:  fmt.Sprintf("Task %s owned by %s was stopped and its cards reclaimed: %s.", name, t.Owner, detail)}
	}
	fresh, err := store.NotifyOwnerAndLeads(ctx, t.ID, key, m.Kind, m.Text, m.At)
	switch {
	case errors.Is(err, models.ErrNotFound):
		fresh = true // nobody with an account: the channels are all there is
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
