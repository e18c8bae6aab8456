package notice_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/notice"
	"kashi/notify"
	"kashi/phrase"
)

// robot is a WeCom robot that keeps the markdown of every message it is sent.
type robot struct {
	mu  sync.Mutex
	got []string
	srv *httptest.Server
	ch  notify.Channel
}

func newRobot(t *testing.T) *robot {
	r := &robot{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var b struct {
			Markdown struct{ Content string } `json:"markdown"`
		}
		json.NewDecoder(req.Body).Decode(&b)
		r.mu.Lock()
		r.got = append(r.got, b.Markdown.Content)
		r.mu.Unlock()
		w.Write([]byte(`{"errcode":0,"errmsg":"ok"}`))
	}))
	t.Cleanup(r.srv.Close)
	ch, err := notify.Parse("wecom:" + r.srv.URL + "/send?key=K")
	if err != nil {
		t.Fatal(err)
	}
	r.ch = ch
	return r
}

// TestChatTimesInTheConfiguredZone: alerts, reminders and idle notices sent to a chat robot
// write their times in the server's time zone with the zone named, never in UTC, and name
// their project where they have one.
func TestChatTimesInTheConfiguredZone(t *testing.T) {
	ctx := context.Background()
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC) // 17:00 in Shanghai
	s := modelstest.SQLite(t, models.Options{})
	r := newRobot(t)
	chans := []notify.Channel{r.ch}

	// The alert's message writes its times, in its text and its own, in the zone it is given.
	s.RaiseAlert(ctx, notCreated("2"), now)
	s.RaiseAlert(ctx, notCreated("2"), now.Add(time.Minute))
	if _, err := notice.SendAlerts(ctx, s, chans, english, shanghai, now.Add(2*time.Minute), quiet()); err != nil {
		t.Fatal(err)
	}

	p, _ := s.EnsureProject(ctx, "vision", now)
	lead, _ := s.CreateUser(ctx, "li", "secret", models.RoleUser, now)
	s.SetMember(ctx, p.ID, lead.ID, models.ProjectRoleLead)
	s.SetQuota(ctx, "admin", models.Quota{ProjectID: p.ID, Spec: "A100-80G", MaxGPUs: 8, BudgetCardHours: 100,
		StartsAt: now.Add(-time.Hour), EndsAt: now.Add(5 * 24 * time.Hour)}, now)
	if _, err := notice.SendReminders(ctx, s, chans, english, notice.DefaultReminderPolicy(shanghai), now, quiet()); err != nil {
		t.Fatal(err)
	}

	task := runningTask(t, s, "li", now)
	s.SetReclaimNotice(ctx, task.ID, now)
	ev := notice.IdleEvent{TaskID: task.ID, Detail: phrase.Of(phrase.New("cards_idle", phrase.Dur(31*time.Minute), phrase.Dur(30*time.Minute)),
		phrase.New("stop_at", phrase.S("17:30 Asia/Shanghai")))}
	if err := notice.IdleTask(ctx, s, chans, english, ev, shanghai, now); err != nil {
		t.Fatal(err)
	}

	if len(r.got) != 3 {
		t.Fatalf("robot got %d messages, want an alert, a reminder and an idle notice:\n%s", len(r.got), strings.Join(r.got, "\n---\n"))
	}
	for i, want := range [][]string{
		{"· 2026-03-02 17:01 CST"},
		{"Project vision:", "· vision · 2026-03-02 17:00 CST"},
		{"(project vision, 1 GPU)", "· vision · 2026-03-02 17:00 CST"},
	} {
		for _, w := range want {
			if !strings.Contains(r.got[i], w) {
				t.Errorf("message %d = %q, want %q in it", i, r.got[i], w)
			}
		}
		if strings.Contains(r.got[i], "UTC") {
			t.Errorf("message %d = %q, writes a time in UTC", i, r.got[i])
		}
	}
}
