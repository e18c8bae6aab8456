package notice_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/notice"
	"kashi/notify"
)

// failing is a channel that refuses every message.
type failing struct{ n int }

func (f *failing) Send(context.Context, notify.Message) error {
	f.n++
	return errors.New("robot down")
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func TestSendAlerts(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	s := modelstest.SQLite(t, models.Options{})
	s.RaiseAlert(ctx, models.AlertBootTimeout, "a100/a100-k1", "pool a100: machine a100-k1 did not register within 15m", now)
	s.RaiseAlert(ctx, models.AlertScaleFailed, "a100", "pool a100: 2 of 2 machines not created: out of capacity", now.Add(time.Minute))
	s.RaiseAlert(ctx, models.AlertScaleFailed, "a100", "pool a100: 1 of 1 machines not created: out of capacity", now.Add(2*time.Minute))

	// A failing channel leaves every alert unsent, even when another channel took them.
	ok, bad := &recorder{}, &failing{}
	n, err := notice.SendAlerts(ctx, s, []notify.Channel{ok, bad}, time.UTC, now.Add(3*time.Minute), quiet())
	if err != nil || n != 0 {
		t.Fatalf("SendAlerts with a failing channel = %d, %v; want 0, nil", n, err)
	}
	if unsent, _ := s.Alerts(ctx, models.AlertFilter{UnsentOnly: true}); len(unsent) != 2 {
		t.Fatalf("unsent alerts after a failure = %d, want 2", len(unsent))
	}

	// The next pass, with the channel back, sends both, oldest first, and marks them sent.
	ok.got = nil
	n, err = notice.SendAlerts(ctx, s, []notify.Channel{ok}, time.UTC, now.Add(4*time.Minute), quiet())
	if err != nil || n != 2 {
		t.Fatalf("SendAlerts = %d, %v; want 2, nil", n, err)
	}
	if len(ok.got) != 2 || ok.got[0].Kind != models.AlertBootTimeout || ok.got[1].Kind != models.AlertScaleFailed {
		t.Fatalf("channel got %+v, want the boot timeout then the scaling failure", ok.got)
	}
	if m := ok.got[1]; !strings.Contains(m.Text, "1 of 1 machines") || !strings.Contains(m.Text, "raised 2 times") {
		t.Errorf("message = %q, want the latest message and the count", m.Text)
	}
	all, _ := s.Alerts(ctx, models.AlertFilter{})
	for _, a := range all {
		if a.SentAt == nil || !a.SentAt.Equal(now.Add(4*time.Minute)) {
			t.Errorf("alert %d %s sent at %v, want %v", a.ID, a.Kind, a.SentAt, now.Add(4*time.Minute))
		}
	}

	// Sent alerts are not sent again, even when raised again.
	s.RaiseAlert(ctx, models.AlertScaleFailed, "a100", "again", now.Add(5*time.Minute))
	ok.got = nil
	if n, err := notice.SendAlerts(ctx, s, []notify.Channel{ok}, time.UTC, now.Add(6*time.Minute), quiet()); n != 0 || err != nil || len(ok.got) != 0 {
		t.Errorf("SendAlerts again = %d, %v, %d messages; want nothing sent", n, err, len(ok.got))
	}

	// No channels: nothing happens, nothing is marked.
	s.RaiseAlert(ctx, models.AlertGPUMemory, "GPU-1", "memory 97%", now.Add(7*time.Minute))
	if n, err := notice.SendAlerts(ctx, s, nil, time.UTC, now.Add(8*time.Minute), quiet()); n != 0 || err != nil {
		t.Errorf("SendAlerts without channels = %d, %v", n, err)
	}
	if unsent, _ := s.Alerts(ctx, models.AlertFilter{UnsentOnly: true}); len(unsent) != 1 {
		t.Errorf("unsent alerts = %d, want the new one left", len(unsent))
	}
}

func TestAlertMessageResolved(t *testing.T) {
	at := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	res := at.Add(time.Hour)
	m := notice.AlertMessage(models.Alert{Kind: "boot-timeout", Subject: "a100/k1", Message: "did not register", At: at,
		LastAt: at, Count: 1, ResolvedAt: &res}, time.UTC)
	if !strings.HasPrefix(m.Title, "Resolved: boot-timeout") || !strings.Contains(m.Text, "Resolved at 2026-03-02 10:00 UTC") {
		t.Errorf("AlertMessage = %+v, want it marked resolved", m)
	}
}
