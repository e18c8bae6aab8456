package scheduler

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"kashi/models"
	"kashi/notify"
)

// NoticeStore is what NoticeIdleTask needs of models.Store.
type NoticeStore interface {
	TaskByID(ctx context.Context, id int64) (models.TaskRow, error)
	TaskReclaims(ctx context.Context) (map[int64]models.TaskReclaim, error)
	NotifyUser(ctx context.Context, name, key, kind, msg string, now time.Time) (bool, error)
}

// Notification kinds NoticeIdleTask writes.
const (
	KindIdleNotice = "idle-notice"
	KindReclaimed  = "reclaimed"
)

// NoticeIdleTask tells a task's owner what idle reclaim did, as the Scaler's OnAction: for
// ActionIdleNotice, that the task's cards are idle and it will be stopped unless kept (the
// owner answers "keep" or "release now" on the notifications page); for ActionReclaim, that it
// was stopped. The owner gets an in-app notification (once per notice: the key carries the
// notice's time) and the channels a message. An owner without an account gets the channels
// only. Other actions are ignored. now is when the action was applied.
func NoticeIdleTask(ctx context.Context, store NoticeStore, channels []notify.Channel, a ScaleAction, now time.Time) error {
	if a.Kind != ActionIdleNotice && a.Kind != ActionReclaim {
		return nil
	}
	t, err := store.TaskByID(ctx, a.TaskID)
	if err != nil {
		return fmt.Errorf("scheduler: notice of task %d: %w", a.TaskID, err)
	}
	// The detail starts "task N of OWNER: "; the message names the task itself.
	detail := a.Detail
	if _, rest, ok := strings.Cut(detail, ": "); ok && strings.HasPrefix(detail, "task ") {
		detail = rest
	}
	name := fmt.Sprintf("#%d %s (%s, %d GPUs)", t.ID, t.Name, t.Project, t.GPUs)
	var m notify.Message
	var key string
	switch a.Kind {
	case ActionIdleNotice:
		at := now
		rs, err := store.TaskReclaims(ctx)
		if err != nil {
			return fmt.Errorf("scheduler: notice of task %d: %w", a.TaskID, err)
		}
		if r, ok := rs[t.ID]; ok && r.NoticeAt != nil {
			at = *r.NoticeAt
		}
		key = fmt.Sprintf("%s:%d:%d", KindIdleNotice, t.ID, at.Unix())
		m = notify.Message{Kind: KindIdleNotice, Project: t.Project, At: at,
			Title: "Idle GPUs: task " + name,
			Text: fmt.Sprintf("Task %s owned by %s: %s. Keep the cards or release them now on the notifications page (/notifications).",
				name, t.Owner, detail)}
	case ActionReclaim:
		key = fmt.Sprintf("%s:%d", KindReclaimed, t.ID)
		m = notify.Message{Kind: KindReclaimed, Project: t.Project, At: now,
			Title: "Reclaimed: task " + name,
			Text:  fmt.Sprintf("Task %s owned by %s was stopped and its cards reclaimed: %s.", name, t.Owner, detail)}
	}
	fresh, err := store.NotifyUser(ctx, t.Owner, key, m.Kind, m.Text, m.At)
	switch {
	case errors.Is(err, models.ErrNotFound):
		fresh = true // no account: the channels are all the owner has
	case err != nil:
		return fmt.Errorf("scheduler: notice of task %d: %w", a.TaskID, err)
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
