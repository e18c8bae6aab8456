package notice_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"kashi/models"
	"kashi/notice"
	"kashi/notify"
	"kashi/schedule"
)

// mondays9 is the default policy: Mondays at 09:00 in Shanghai, a day late at most.
func mondays9(t *testing.T) notice.WeeklyPolicy {
	t.Helper()
	s, err := schedule.Parse("0 9 * * 1", "Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	loc, _ := time.LoadLocation("Asia/Shanghai")
	return notice.DefaultWeeklyPolicy(s, loc)
}

// shanghai is a moment of March 2026 in Shanghai (UTC+8).
func shanghai(day, hour, minute int) time.Time {
	return time.Date(2026, 3, day, hour-8, minute, 0, 0, time.UTC)
}

func TestDueWeek(t *testing.T) {
	pol := mondays9(t)
	tests := map[string]struct {
		now  time.Time
		want string
	}{
		"Monday 08:59, before the time":    {shanghai(9, 8, 59), ""},
		"Monday 09:00, the week before":    {shanghai(9, 9, 0), "2026-W10"},
		"Tuesday 08:59, within a day late": {shanghai(10, 8, 59), "2026-W10"},
		"Tuesday 09:01, more than a day":   {shanghai(10, 9, 1), ""},
		"Sunday":                           {shanghai(15, 23, 0), ""},
		"the next Monday":                  {shanghai(16, 9, 30), "2026-W11"},
	}
	for name, tc := range tests {
		if got := notice.DueWeek(pol, tc.now); got != tc.want {
			t.Errorf("%s: DueWeek(%s) = %q, want %q", name, tc.now, got, tc.want)
		}
	}
}

// weeklyWorld is a store file with project vision whose lead is li, reopened as a
// restarted server would.
type weeklyWorld struct {
	path string
	lead int64
	pid  int64
}

func newWeeklyWorld(t *testing.T) (weeklyWorld, *models.Store) {
	t.Helper()
	ctx := context.Background()
	w := weeklyWorld{path: filepath.Join(t.TempDir(), "kashi.db")}
	s := w.open(t)
	p, err := s.EnsureProject(ctx, "vision", shanghai(1, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	lead, err := s.CreateUser(ctx, "li", "secret", models.RoleUser, shanghai(1, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.SetMember(ctx, p.ID, lead.ID, models.ProjectRoleLead); err != nil {
		t.Fatal(err)
	}
	w.lead, w.pid = lead.ID, p.ID
	return w, s
}

func (w weeklyWorld) open(t *testing.T) *models.Store {
	t.Helper()
	s, err := models.Open(context.Background(), w.path, models.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// reports makes vision's message of the week and counts its calls; fail makes it fail.
type reports struct {
	pid   int64
	calls int
	fail  bool
}

func (r *reports) make(_ context.Context, week string, _ time.Time) ([]notice.WeeklyMessage, error) {
	r.calls++
	if r.fail {
		return nil, errors.New("ledger unreadable")
	}
	return []notice.WeeklyMessage{{ProjectID: r.pid, Project: "vision", Title: "Weekly report: vision, " + week, Text: "…"}}, nil
}

// TestSendWeeklyReportsOnce: a clock passing Monday 09:00 sends the week's report once, to
// the channels and to the lead in-app; passes after it, and a restarted server, send
// nothing more; the next Monday sends the next week.
func TestSendWeeklyReportsOnce(t *testing.T) {
	ctx := context.Background()
	w, s := newWeeklyWorld(t)
	ch := &recorder{}
	r := &reports{pid: w.pid}
	pol := mondays9(t)
	pass := func(s *models.Store, at time.Time) string {
		t.Helper()
		week, _, err := notice.SendWeeklyReports(ctx, s, []notify.Channel{ch}, pol, r.make, at, nil)
		if err != nil {
			t.Fatal(err)
		}
		return week
	}
	var sent []string
	for at := shanghai(9, 8, 50); at.Before(shanghai(9, 10, 0)); at = at.Add(5 * time.Minute) {
		if week := pass(s, at); week != "" {
			sent = append(sent, at.Format("15:04Z")+" "+week)
		}
	}
	if len(sent) != 1 || sent[0] != "01:00Z 2026-W10" {
		t.Errorf("passes from 08:50 to 10:00 sent %v, want 2026-W10 once at 09:00 (01:00Z)", sent)
	}
	s.Close()
	restarted := w.open(t)
	if week := pass(restarted, shanghai(9, 10, 5)); week != "" {
		t.Errorf("a restarted server sent %s again", week)
	}
	if len(ch.got) != 1 || ch.got[0].Kind != notice.KindWeeklyReport || ch.got[0].Project != "vision" {
		t.Errorf("channel got %+v, want vision's weekly report once", ch.got)
	}
	if r.calls != 1 {
		t.Errorf("the report was made %d times, want once: a sent week is not made again", r.calls)
	}
	notes, err := restarted.Notifications(ctx, w.lead, 10)
	if key := fmt.Sprintf("weekly-report:2026-W10:%d", w.pid); err != nil || len(notes) != 1 || notes[0].Key != key {
		t.Errorf("lead's notifications = %+v, %v; want one, %s", notes, err, key)
	}
	if week := pass(restarted, shanghai(16, 9, 0)); week != "2026-W11" {
		t.Errorf("the next Monday sent %q, want 2026-W11", week)
	}
}

// TestSendWeeklyReportsRetries: a report that cannot be made claims nothing, so the next
// pass makes it again and sends it.
func TestSendWeeklyReportsRetries(t *testing.T) {
	ctx := context.Background()
	w, s := newWeeklyWorld(t)
	ch := &recorder{}
	r := &reports{pid: w.pid, fail: true}
	if _, _, err := notice.SendWeeklyReports(ctx, s, []notify.Channel{ch}, mondays9(t), r.make, shanghai(9, 9, 0), nil); err == nil {
		t.Fatal("SendWeeklyReports with a failing report: no error")
	}
	r.fail = false
	week, n, err := notice.SendWeeklyReports(ctx, s, []notify.Channel{ch}, mondays9(t), r.make, shanghai(9, 9, 5), nil)
	if err != nil || week != "2026-W10" || n != 1 || len(ch.got) != 1 {
		t.Errorf("the pass after = %q, %d, %v with %d sent; want 2026-W10 to one project", week, n, err, len(ch.got))
	}
}

// lockedRecorder is a recorder that two replicas may share.
type lockedRecorder struct {
	mu  sync.Mutex
	got []notify.Message
}

func (r *lockedRecorder) Send(_ context.Context, m notify.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, m)
	return nil
}

// TestSendWeeklyReportsTwoReplicas: two servers on one database passing at the same moment
// both make the report, and only the one whose claim made the row sends it.
func TestSendWeeklyReportsTwoReplicas(t *testing.T) {
	ctx := context.Background()
	w, a := newWeeklyWorld(t)
	b := w.open(t)
	ch := &lockedRecorder{}
	var wg sync.WaitGroup
	for _, s := range []*models.Store{a, b} {
		wg.Go(func() {
			r := &reports{pid: w.pid}
			if _, _, err := notice.SendWeeklyReports(ctx, s, []notify.Channel{ch}, mondays9(t), r.make, shanghai(9, 9, 0), nil); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if len(ch.got) != 1 {
		t.Errorf("the channel got %d messages from two replicas, want 1", len(ch.got))
	}
}
