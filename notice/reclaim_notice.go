package notice

import (
	"context"
	"errors"
	"fmt"
	"time"

	"kashi/models"
	"kashi/notify"
	"kashi/phrase"
)

// IdleStore is what IdleTask needs of models.Store.
type IdleStore interface {
	TaskByID(ctx context.Context, id int64) (models.TaskRow, error)
	TaskReclaims(ctx context.Context) (map[int64]models.TaskReclaim, error)
	NotifyOwnerAndLeads(ctx context.Context, taskID int64, key, kind, msg string, now time.Time) (bool, error)
	ChatIDsOf(ctx context.Context, name string) (models.ChatIDs, error)
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
	// Detail is the scaling loop's explanation as catalog codes, without the task it is
	// about (the message names it): cards_idle, stop_at; idle_for, no_answer.
	Detail phrase.List
}

// IdleTask tells a task's owner and its project's leads what idle reclaim did: that the
// task's cards are idle and it will be stopped unless kept (the owner or a lead answers
// "keep" or "release now" on the notifications page), or that it was stopped. Each of them
// with an account gets an in-app notification, once each (once per notice: the key carries
// the notice's time), and the channels a message the first time anyone is told, mentioning the
// owner by their chat ids (models.ChatIDs) so the chat tells them; when none of
// them has an account, the channels are all there is and always hear. The message is worded
// in l, the installation's language, as alerts are, and links to the notifications page (a
// notice) or the task (a reclaim); its times are in loc (the --time-zone).
// now is when the scaling loop acted.
func IdleTask(ctx context.Context, store IdleStore, channels []notify.Channel, l phrase.Locale, a IdleEvent, loc *time.Location, now time.Time) error {
	loc = locOr(loc)
	t, err := store.TaskByID(ctx, a.TaskID)
	if err != nil {
		return fmt.Errorf("notice: idle task %d: %w", a.TaskID, err)
	}
	detail := l.Say(a.Detail)
	name := l.T("idle.chat.task", t.ID, t.Name, t.Project, l.Count("notes.idle.gpus", t.GPUs))
	ids, err := store.ChatIDsOf(ctx, t.Owner)
	if err != nil {
		return fmt.Errorf("notice: idle task %d: %w", a.TaskID, err)
	}
	m := notify.Message{Project: t.Project, Mentions: []notify.Mention{Mention(t.Owner, ids)}}
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
		m.Kind, m.At = KindIdleNotice, at.In(loc)
		m.Title = l.T("idle.chat.notice_title", name)
		m.Text = l.T("idle.chat.notice_text", name, t.Owner, detail)
		m.Link, m.LinkText = "/notifications", l.T("chat.link.notifications")
	default:
		// The key of the owner's notification of the task's end in state reclaimed: the
		// owner is told of the reclaim once, whichever writes first.
		key = models.TaskNoteKey(t.ID, models.TaskReclaimed)
		m.Kind, m.At = KindReclaimed, now.In(loc)
		m.Title = l.T("idle.chat.reclaimed_title", name)
		m.Text = l.T("idle.chat.reclaimed_text", name, t.Owner, detail)
		m.Link, m.LinkText = fmt.Sprintf("/tasks/%d", t.ID), l.T("chat.link.task")
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

// Mention is the user name with their chat ids, as the robots mention people.
func Mention(name string, ids models.ChatIDs) notify.Mention {
	return notify.Mention{Name: name, DingTalk: ids.DingTalk, Feishu: ids.Feishu, WeCom: ids.WeCom}
}
