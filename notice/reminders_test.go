package notice_test

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/notice"
	"kashi/notify"
	"kashi/phrase"
)

func TestReminders(t *testing.T) {
	now := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	pol := notice.DefaultReminderPolicy(time.UTC)
	q := func(id int64, endsIn time.Duration, budget int64) models.Quota {
		return models.Quota{ID: id, ProjectID: id, Spec: "A100-80G", MaxGPUs: 8, BudgetCardHours: budget,
			StartsAt: now.Add(-24 * time.Hour), EndsAt: now.Add(endsIn)}
	}
	tests := map[string]struct {
		quota models.Quota
		used  int64 // card-hours this month
		want  []string
	}{
		"far from the end, little used": {q(1, 60*24*time.Hour, 100), 10, nil},
		"20 days left":                  {q(1, 20*24*time.Hour, 100), 10, []string{"quota-ends:1:2026-03-30:30"}},
		"10 days left":                  {q(1, 10*24*time.Hour, 100), 10, []string{"quota-ends:1:2026-03-20:14"}},
		"3 days left":                   {q(1, 3*24*time.Hour, 100), 10, []string{"quota-ends:1:2026-03-13:7"}},
		"80% used":                      {q(1, 60*24*time.Hour, 100), 80, []string{"budget:1:2026-03:80"}},
		"all used":                      {q(1, 60*24*time.Hour, 100), 130, []string{"budget:1:2026-03:100"}},
		"ended quota reminds nothing":   {q(1, -time.Hour, 100), 130, nil},
		"its own days and shares": {func() models.Quota {
			o := q(1, 20*24*time.Hour, 100)
			o.RemindEndDays, o.RemindBudgetPcts = "21,3", "50"
			return o
		}(), 60, []string{"quota-ends:1:2026-03-30:21", "budget:1:2026-03:50"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			usage := map[int64]map[string]int64{1: {"A100-80G": tc.used * 3600}}
			var keys []string
			for _, r := range notice.Reminders([]models.Quota{tc.quota}, usage, map[int64]string{1: "vision"}, english, pol, now) {
				keys = append(keys, r.Key)
			}
			if diff := cmp.Diff(tc.want, keys); diff != "" {
				t.Errorf("Reminders(...) keys (-want +got):\n%s", diff)
			}
		})
	}
}

type recorder struct{ got []notify.Message }

func (r *recorder) Send(_ context.Context, m notify.Message) error {
	r.got = append(r.got, m)
	return nil
}

func TestSendRemindersOnce(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	s := modelstest.SQLite(t, models.Options{})
	p, _ := s.EnsureProject(ctx, "vision", now)
	lead, _ := s.CreateUser(ctx, "li", "secret", models.RoleUser, now)
	s.SetMember(ctx, p.ID, lead.ID, models.ProjectRoleLead)
	s.SetQuota(ctx, "admin", models.Quota{ProjectID: p.ID, Spec: "A100-80G", MaxGPUs: 8, BudgetCardHours: 100,
		StartsAt: now.Add(-time.Hour), EndsAt: now.Add(5 * 24 * time.Hour)}, now)
	ch := &recorder{}
	for i := range 3 {
		n, err := notice.SendReminders(ctx, s, []notify.Channel{ch}, english, notice.DefaultReminderPolicy(time.UTC), now.Add(time.Duration(i)*time.Hour), slog.Default())
		if err != nil {
			t.Fatal(err)
		}
		if want := map[int]int{0: 1}[i]; n != want {
			t.Errorf("run %d: SendReminders = %d new, want %d", i, n, want)
		}
	}
	if len(ch.got) != 1 || ch.got[0].Project != "vision" {
		t.Errorf("channel got %+v, want one reminder for vision", ch.got)
	}
	notes, _ := s.Notifications(ctx, lead.ID, 10)
	if len(notes) != 1 || notes[0].Kind != "quota-ends" {
		t.Errorf("lead's notifications = %+v, want one quota-ends", notes)
	}
}

// TestRemindersNameTheirProject: a lead of two projects is told which project each
// reminder is about, in the app as in the channels.
func TestRemindersNameTheirProject(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	s := modelstest.SQLite(t, models.Options{})
	lead, _ := s.CreateUser(ctx, "li", "secret", models.RoleUser, now)
	for _, name := range []string{"vision", "nlp"} {
		p, _ := s.EnsureProject(ctx, name, now)
		s.SetMember(ctx, p.ID, lead.ID, models.ProjectRoleLead)
		s.SetQuota(ctx, "admin", models.Quota{ProjectID: p.ID, Spec: "A100-80G", MaxGPUs: 8, BudgetCardHours: 100,
			StartsAt: now.Add(-time.Hour), EndsAt: now.Add(5 * 24 * time.Hour)}, now)
	}
	ch := &recorder{}
	if _, err := notice.SendReminders(ctx, s, []notify.Channel{ch}, english, notice.DefaultReminderPolicy(time.UTC), now, slog.Default()); err != nil {
		t.Fatal(err)
	}
	notes, _ := s.Notifications(ctx, lead.ID, 10)
	var texts []string
	for _, n := range notes {
		texts = append(texts, n.Message)
	}
	slices.Sort(texts)
	want := []string{
		"Project nlp: the A100-80G quota ends on 2026-03-15, in 7 days or less.",
		"Project vision: the A100-80G quota ends on 2026-03-15, in 7 days or less.",
	}
	if diff := cmp.Diff(want, texts); diff != "" {
		t.Errorf("lead's reminders (-want +got):\n%s", diff)
	}
	for _, m := range ch.got {
		if !strings.Contains(m.Text, "Project "+m.Project+":") {
			t.Errorf("channel message %+v does not name its project in its text", m)
		}
	}
}

// TestRemindersInChinese: with the installation in zh-CN, reminders are written in Chinese,
// in-app and on the channels, titles too.
func TestRemindersInChinese(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	s := modelstest.SQLite(t, models.Options{})
	p, _ := s.EnsureProject(ctx, "vision", now)
	lead, _ := s.CreateUser(ctx, "li", "secret", models.RoleUser, now)
	s.SetMember(ctx, p.ID, lead.ID, models.ProjectRoleLead)
	s.SetQuota(ctx, "admin", models.Quota{ProjectID: p.ID, Spec: "A100-80G", MaxGPUs: 8, BudgetCardHours: 100,
		StartsAt: now.Add(-time.Hour), EndsAt: now.Add(5 * 24 * time.Hour)}, now)
	s.SetQuota(ctx, "admin", models.Quota{ProjectID: p.ID, MaxGPUs: 8, BudgetCardHours: 1,
		StartsAt: now.Add(-time.Hour), EndsAt: now.Add(60 * 24 * time.Hour)}, now)
	node := modelstest.Node("a100-01").Pool("a100").A100s(1).Register(t, s, now.Add(-3*time.Hour))
	modelstest.Run(t, s, modelstest.Task("vision", "train").Create(t, s, now.Add(-3*time.Hour)), node, now.Add(-3*time.Hour))
	ch := &recorder{}
	zh := phrase.Locale{Lang: phrase.LangZH}
	if _, err := notice.SendReminders(ctx, s, []notify.Channel{ch}, zh, notice.DefaultReminderPolicy(time.UTC), now, slog.Default()); err != nil {
		t.Fatal(err)
	}
	notes, _ := s.Notifications(ctx, lead.ID, 10)
	var texts []string
	for _, n := range notes {
		texts = append(texts, n.Message)
	}
	slices.Sort(texts)
	want := []string{
		"项目 vision：A100-80G 配额将于 2026-03-15 到期，剩余不超过 7 天。",
		"项目 vision：全部卡型 预算本月已用 100%（3 / 1 卡时）。",
	}
	if diff := cmp.Diff(want, texts); diff != "" {
		t.Errorf("lead's reminders in zh-CN (-want +got):\n%s", diff)
	}
	var titles []string
	for _, m := range ch.got {
		titles = append(titles, m.Title)
	}
	slices.Sort(titles)
	if diff := cmp.Diff([]string{"vision：配额到期", "vision：预算"}, titles); diff != "" {
		t.Errorf("channel titles in zh-CN (-want +got):\n%s", diff)
	}
}
