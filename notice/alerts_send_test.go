package notice_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/notice"
	"kashi/notify"
	"kashi/phrase"
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
	s.RaiseAlert(ctx, bootTimeout, now)
	s.RaiseAlert(ctx, notCreated("2"), now.Add(time.Minute))
	s.RaiseAlert(ctx, notCreated("1"), now.Add(2*time.Minute))

	// A failing channel leaves every alert unsent, even when another channel took them.
	ok, bad := &recorder{}, &failing{}
	n, err := notice.SendAlerts(ctx, s, []notify.Channel{ok, bad}, english, time.UTC, now.Add(3*time.Minute), quiet())
	if err != nil || n != 0 {
		t.Fatalf("SendAlerts with a failing channel = %d, %v; want 0, nil", n, err)
	}
	if unsent, _ := s.Alerts(ctx, models.AlertFilter{UnsentOnly: true}); len(unsent) != 2 {
		t.Fatalf("unsent alerts after a failure = %d, want 2", len(unsent))
	}

	// The next pass, with the channel back, sends both, oldest first, and marks them sent.
	ok.got = nil
	n, err = notice.SendAlerts(ctx, s, []notify.Channel{ok}, english, time.UTC, now.Add(4*time.Minute), quiet())
	if err != nil || n != 2 {
		t.Fatalf("SendAlerts = %d, %v; want 2, nil", n, err)
	}
	if len(ok.got) != 2 || ok.got[0].Kind != models.AlertBootTimeout || ok.got[1].Kind != models.AlertScaleFailed {
		t.Fatalf("channel got %+v, want the boot timeout then the scaling failure", ok.got)
	}
	if m := ok.got[1]; m.Title != "[Warning] Scaling failed · pool a100" ||
		m.Text != "Pool a100: 1 of 1 machines not created: out of capacity (raised 2 times since 2026-03-02 09:01 UTC)" {
		t.Errorf("message = %+v, want the words of the latest sentence and the count", m)
	}
	all, _ := s.Alerts(ctx, models.AlertFilter{})
	for _, a := range all {
		if a.SentAt == nil || !a.SentAt.Equal(now.Add(4*time.Minute)) {
			t.Errorf("alert %d %s sent at %v, want %v", a.ID, a.Kind, a.SentAt, now.Add(4*time.Minute))
		}
	}

	// Sent alerts are not sent again, even when raised again.
	s.RaiseAlert(ctx, notCreated("3"), now.Add(5*time.Minute))
	ok.got = nil
	if n, err := notice.SendAlerts(ctx, s, []notify.Channel{ok}, english, time.UTC, now.Add(6*time.Minute), quiet()); n != 0 || err != nil || len(ok.got) != 0 {
		t.Errorf("SendAlerts again = %d, %v, %d messages; want nothing sent", n, err, len(ok.got))
	}

	// No channels: nothing happens, nothing is marked.
	s.RaiseAlert(ctx, models.AlertInput{Kind: models.AlertGPUMemory, Subject: "GPU-1", Code: "gpu_memory"}, now.Add(7*time.Minute))
	if n, err := notice.SendAlerts(ctx, s, nil, english, time.UTC, now.Add(8*time.Minute), quiet()); n != 0 || err != nil {
		t.Errorf("SendAlerts without channels = %d, %v", n, err)
	}
	if unsent, _ := s.Alerts(ctx, models.AlertFilter{UnsentOnly: true}); len(unsent) != 1 {
		t.Errorf("unsent alerts = %d, want the new one left", len(unsent))
	}
}

var bootTimeout = models.AlertInput{Kind: models.AlertBootTimeout, Subject: "a100/a100-k1", Pool: "a100", Code: "boot_timeout",
	Params: []string{"a100", "a100-k1"}}

func notCreated(n string) models.AlertInput {
	return models.AlertInput{Kind: models.AlertScaleFailed, Subject: "a100", Pool: "a100", Code: "machines_not_created",
		Params: []string{"a100", n, n, "out of capacity"}}
}

// english is the installation's language of the tests' chat messages.
var english = phrase.Locale{Lang: phrase.LangEN}
