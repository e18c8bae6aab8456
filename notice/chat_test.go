package notice_test

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/notice"
	"kashi/notify"
	"kashi/phrase"
)

// memoryAlert is the alert CheckGPUMemory raises for task on GPU i of host n1.
func memoryAlert(task models.Task, i int) models.AlertInput {
	return models.AlertInput{Kind: models.AlertGPUMemory, Subject: fmt.Sprintf("task %d on n1 GPU %d", task.ID, i), TaskID: task.ID,
		Pool: "a100", Severity: models.SeverityCritical, Code: "gpu_memory",
		Params: []string{strconv.FormatInt(task.ID, 10), "train", "vision", "n1", strconv.Itoa(i), "79000", "81920", "96", "95"}}
}

// englishSentence is three English words in a row: names in messages (tasks, projects, hosts)
// are one word each.
var englishSentence = regexp.MustCompile(`[A-Za-z]{2,}(?:[ ,'’]+[A-Za-z]{2,}){2,}`)

// everyMessage sends a message of every kind the channels hear, worded in l, to ch: a GPU
// memory alert alone, then several of one kind grouped, a quota reminder, an idle notice and
// a reclaim. (The weekly report's link is TestWeeklyMessages'.)
func everyMessage(t *testing.T, l phrase.Locale, ch notify.Channel) {
	t.Helper()
	ctx := context.Background()
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	w := newIdleWorld(t, "alice", now)
	channels := notify.Under("https://kashi.example.com/", []notify.Channel{ch})

	w.s.RaiseAlert(ctx, memoryAlert(w.task, 0), now)
	if _, err := notice.SendAlerts(ctx, w.s, channels, l, time.UTC, now, quiet()); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		w.s.RaiseAlert(ctx, memoryAlert(w.task, i+1), now.Add(time.Minute))
	}
	if _, err := notice.SendAlerts(ctx, w.s, channels, l, time.UTC, now.Add(time.Minute), quiet()); err != nil {
		t.Fatal(err)
	}
	vision, _ := w.s.ProjectByName(ctx, "vision")
	w.s.SetQuota(ctx, "admin", models.Quota{ProjectID: vision.ID, Spec: "A100-80G", MaxGPUs: 8, BudgetCardHours: 100,
		StartsAt: now.Add(-time.Hour), EndsAt: now.Add(5 * 24 * time.Hour)}, now)
	if _, err := notice.SendReminders(ctx, w.s, channels, l, notice.DefaultReminderPolicy(time.UTC), now, quiet()); err != nil {
		t.Fatal(err)
	}
	for _, a := range []notice.IdleEvent{{TaskID: w.task.ID, Detail: idleDetail},
		{TaskID: w.task.ID, Reclaimed: true, Detail: phrase.Of(phrase.New("idle_for", phrase.Dur(time.Hour)))}} {
		if err := notice.IdleTask(ctx, w.s, channels, l, a, time.UTC, now); err != nil {
			t.Fatal(err)
		}
	}
}

// TestChatLinksBack: every kind of message links into Kashi with an absolute URL under the
// public URL, and the robots show it.
func TestChatLinksBack(t *testing.T) {
	ch := &recorder{}
	everyMessage(t, english, ch)
	wantLinks := []string{"/alerts", "/alerts", "/projects", "/notifications", "/tasks/1"}
	if len(ch.got) != len(wantLinks) {
		t.Fatalf("the channel got %d messages, want %d (%v)", len(ch.got), len(wantLinks), ch.got)
	}
	for i, m := range ch.got {
		if want := "https://kashi.example.com" + wantLinks[i]; m.Link != want || m.LinkText == "" {
			t.Errorf("message %d (%s) links to %q (%q), want %q with words", i, m.Kind, m.Link, m.LinkText, want)
		}
		if strings.Contains(m.Text, "(/") {
			t.Errorf("message %d (%s) names a bare path: %q", i, m.Kind, m.Text)
		}
	}
}

// TestChatInChinese: under zh-CN, no message of any kind has an English sentence, in its
// title, its text or its link's words.
func TestChatInChinese(t *testing.T) {
	ch := &recorder{}
	everyMessage(t, phrase.Locale{Lang: phrase.LangZH}, ch)
	if len(ch.got) != 5 {
		t.Fatalf("the channel got %d messages, want 5", len(ch.got))
	}
	for i, m := range ch.got {
		for _, s := range []string{m.Title, m.Text, m.LinkText} {
			if e := englishSentence.FindString(s); e != "" {
				t.Errorf("message %d (%s) has English %q in %q", i, m.Kind, e, s)
			}
		}
	}
}

// TestAlertsGrouped: the alerts of one kind raised between two passes go out as one message
// listing each; another kind is a message of its own.
func TestAlertsGrouped(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	s := modelstest.SQLite(t, models.Options{})
	task := runningTask(t, s, "alice", now)
	for i := range 15 {
		s.RaiseAlert(ctx, memoryAlert(task, i), now)
	}
	s.RaiseAlert(ctx, bootTimeout, now)
	ch := &recorder{}
	n, err := notice.SendAlerts(ctx, s, []notify.Channel{ch}, english, time.UTC, now.Add(time.Minute), quiet())
	if err != nil || n != 16 {
		t.Fatalf("SendAlerts = %d, %v; want 16 sent", n, err)
	}
	if len(ch.got) != 2 {
		t.Fatalf("the channel got %d messages, want 2: %+v", len(ch.got), ch.got)
	}
	m := ch.got[0]
	if m.Kind != models.AlertGPUMemory || m.Title != "[Critical] GPU memory near the limit · 15 alerts" || strings.Count(m.Text, "\n- ") != 14 ||
		!strings.Contains(m.Text, "\n- Task #1 (train, project vision) on n1 GPU 14 uses") {
		t.Errorf("grouped message = %q / %q, want the 15 memory alerts, a line each", m.Title, m.Text)
	}
	if ch.got[1].Kind != models.AlertBootTimeout {
		t.Errorf("second message is %s, want the boot timeout's own", ch.got[1].Kind)
	}
	if unsent, _ := s.Alerts(ctx, models.AlertFilter{UnsentOnly: true}); len(unsent) != 0 {
		t.Errorf("%d alerts unsent after the pass, want 0", len(unsent))
	}
}
