package tasks_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/web/webtest"
)

// TestNotificationsWeeklyReportsNameTheirProject: a lead of three projects gets one weekly
// report for each (notice.SendWeeklyReports's keys); the page tells them apart by project,
// in English and in Chinese, rather than three identical lines.
func TestNotificationsWeeklyReportsNameTheirProject(t *testing.T) {
	s := webtest.NewServer(t)
	s.Projects("vision", "nlp", "speech")
	lead := s.MemberAs("li", "vision", models.ProjectRoleLead)
	ctx := context.Background()
	u, _ := s.Store.UserByName(ctx, "li")
	for _, name := range []string{"vision", "nlp", "speech"} {
		p, _ := s.Store.ProjectByName(ctx, name)
		if err := s.Store.SetMember(ctx, p.ID, u.ID, models.ProjectRoleLead); err != nil {
			t.Fatal(err)
		}
		key := "weekly-report:2026-W10:" + strconv.FormatInt(p.ID, 10)
		if _, err := s.Store.NotifyProject(ctx, p.ID, key, "weekly-report", "Project "+name+", week 2026-W10: …", webtest.T0); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ lang, text string }{{"en", "The report of week 2026-W10 is out."}, {"zh-CN", "2026-W10 周的周报已发出。"}} {
		doc := webtest.Parse(t, s.Get("/notifications", append(webtest.Bearer(lead), "Cookie", "kashi_lang="+c.lang)...).Body.String())
		var got []string
		doc.Find(`[data-testid=notification][data-kind=weekly-report]`).Each(func(_ int, n *goquery.Selection) {
			got = append(got, n.Find(`[data-testid=note-project]`).Text()+": "+strings.TrimSpace(n.Find(`p`).Text()))
		})
		want := []string{"speech: " + c.text, "nlp: " + c.text, "vision: " + c.text}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: the lead's weekly reports (-want +got):\n%s", c.lang, diff)
		}
	}
}
