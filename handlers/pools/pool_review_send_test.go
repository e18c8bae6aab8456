package pools_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"kashi/models"
	"kashi/notify"
	"kashi/web/webtest"
)

// chatRecorder is a chat channel that keeps what it is sent.
type chatRecorder struct {
	mu  sync.Mutex
	got []notify.Message
}

func (r *chatRecorder) Send(_ context.Context, m notify.Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, m)
	return nil
}

func (r *chatRecorder) sent() []notify.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]notify.Message(nil), r.got...)
}

// sendToLeads: an admin messages the demo month's A100 review to the leads: the page offers
// the button; the POST tells the leads of the month's projects in-app and the chat once, in
// the installation's language (zh-CN, though the admin reads English), with every verdict
// and an absolute link to the review under the public URL; a second click tells nobody again
// and says so. A lead of a project with no task in the period is refused (403) and offered
// no button; a bad period is 422.
func sendToLeads(t *testing.T, s *webtest.Server, chat *chatRecorder) {
	ctx := context.Background()
	const month = "/pools/a100/review?from=2026-02-01&to=2026-02-28"
	const send = "/pools/a100/review/send?from=2026-02-01&project=&to=2026-02-28"
	page := webtest.Parse(t, s.Get(month).Body.String())
	if got := page.Find(`[data-testid=review-send] form`).AttrOr("hx-post", ""); got != send {
		t.Fatalf("the review's send button posts to %q, want %q", got, send)
	}
	w := s.Post(send, "", "HX-Request", "true")
	sent := webtest.Parse(t, w.Body.String()).Find(`[data-testid=review-sent]`)
	if w.Code != http.StatusOK || sent.Length() != 1 || sent.AttrOr("data-told", "0") == "0" {
		t.Fatalf("POST %s = %d %s, want the leads told", send, w.Code, w.Body)
	}
	msgs := chat.sent()
	if len(msgs) != 1 {
		t.Fatalf("the chat got %d messages, want 1", len(msgs))
	}
	m := msgs[0]
	link := "https://kashi.example/pools/a100/review?from=2026-02-01&project=&to=2026-02-28"
	if m.Kind != "pilot-review" || m.Link != link || !strings.HasPrefix(m.Title, "a100 的试点复盘") ||
		!strings.Contains(m.Text, "- 波峰接住了吗：") || !strings.Contains(m.Text, link) || strings.Count(m.Text, "\n- ") != 4 {
		t.Errorf("the chat's message = %+v", m)
	}
	lead, err := s.Store.UserByName(ctx, "lead")
	if err != nil {
		t.Fatal(err)
	}
	ns, err := s.Store.Notifications(ctx, lead.ID, 10)
	if err != nil || len(ns) == 0 || ns[0].Kind != "pilot-review" || ns[0].Message != m.Text {
		t.Errorf("the lead's notifications = %+v, %v; want the message", ns, err)
	}

	again := s.Post(send, "")
	if got := webtest.Parse(t, again.Body.String()).Find(`[data-testid=review-sent]`).AttrOr("data-told", ""); again.Code != http.StatusOK || got != "0" {
		t.Errorf("a second send = %d, told %q; want 0", again.Code, got)
	}
	if n := len(chat.sent()); n != 1 {
		t.Errorf("after a second send the chat got %d messages, want 1", n)
	}

	s.Projects("elsewhere")
	other := webtest.Bearer(s.MemberAs("olga", "elsewhere", models.ProjectRoleLead))
	if w := s.Post(send, "", other...); w.Code != http.StatusForbidden {
		t.Errorf("a lead of another project's send = %d, want 403", w.Code)
	}
	if n := webtest.Parse(t, s.Get(month, other...).Body.String()).Find(`[data-testid=review-send]`).Length(); n != 0 {
		t.Errorf("a lead of another project is offered the button")
	}
	if w := s.Post("/pools/a100/review/send?from=2026-02-10&to=2026-02-01", ""); w.Code != http.StatusUnprocessableEntity {
		t.Errorf("a send of a bad period = %d, want 422", w.Code)
	}
}
