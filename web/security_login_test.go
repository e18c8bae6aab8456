package web_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"kashi/handlers/people"
	"kashi/models"
	"kashi/models/modelstest"
	"kashi/web"
	"kashi/web/webtest"
)

// TestLoginThrottledPerAccount: after five wrong passwords an account waits, even with the
// right one, the page says how long, and the audit log stops growing.
func TestLoginThrottledPerAccount(t *testing.T) {
	s := webtest.NewServer(t)
	if _, err := s.Store.CreateUser(context.Background(), "ana", "pw-ana", models.RoleUser, webtest.T0); err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		w := s.Login("ana", "guess", "192.0.2.1")
		want := http.StatusUnauthorized
		if i >= 5 {
			want = http.StatusTooManyRequests
		}
		if w.Code != want {
			t.Fatalf("wrong password %d = %d, want %d", i+1, w.Code, want)
		}
	}
	w := s.Login("ana", "pw-ana", "192.0.2.1")
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "180" || !strings.Contains(w.Body.String(), "3m0s") {
		t.Errorf("right password while throttled = %d Retry-After %q, want 429 after 180 s, saying 3m0s", w.Code, w.Header().Get("Retry-After"))
	}
	if n := s.FailedLogins(); n != 5 {
		t.Errorf("audit rows of failed logins = %d, want 5", n)
	}
	s.SetNow(webtest.T0.Add(3 * time.Minute))
	if w := s.Login("ana", "pw-ana", "192.0.2.1"); w.Code != http.StatusSeeOther {
		t.Errorf("right password after the wait = %d, want 303", w.Code)
	}
}

// TestLoginThrottledPerAddress: one address guessing many accounts is throttled too, and
// another address is not.
func TestLoginThrottledPerAddress(t *testing.T) {
	s := webtest.NewServer(t)
	for i := range 20 {
		if w := s.Login("user"+string(rune('a'+i)), "guess", "198.51.100.7"); w.Code != http.StatusUnauthorized {
			t.Fatalf("guess %d = %d, want 401", i+1, w.Code)
		}
	}
	if w := s.Login("someone", "guess", "198.51.100.7"); w.Code != http.StatusTooManyRequests {
		t.Errorf("21st guess from one address = %d, want 429", w.Code)
	}
	if w := s.Login("someone", "guess", "198.51.100.8"); w.Code != http.StatusUnauthorized {
		t.Errorf("a guess from another address = %d, want 401", w.Code)
	}
}

// blockingStore holds every password check until release is closed, telling entered of each.
type blockingStore struct {
	*models.Store
	entered chan struct{}
	release chan struct{}
}

func (b blockingStore) Authenticate(ctx context.Context, name, password string) (models.User, error) {
	b.entered <- struct{}{}
	<-b.release
	return b.Store.Authenticate(ctx, name, password)
}

// TestLoginTriesUnderWayCount: tries sent at once count against the throttle while they are
// checked, so ten guesses of one account at once get five checks, not ten; the others are
// refused at once, to come back in a second.
func TestLoginTriesUnderWayCount(t *testing.T) {
	const tries = 2 * people.AccountFailures
	store := modelstest.SQLite(t, models.Options{})
	if _, err := store.CreateUser(context.Background(), "ana", "pw-ana", models.RoleUser, webtest.T0); err != nil {
		t.Fatal(err)
	}
	bs := blockingStore{Store: store, entered: make(chan struct{}), release: make(chan struct{})}
	s := webtest.NewServerOn(t, store, webtest.TestCfg())
	s.E = web.New(web.NewAreas(bs, s.Sched, webtest.TestCfg(), func() time.Time { return webtest.T0 }), false, slog.New(slog.DiscardHandler))
	answers := make(chan *httptest.ResponseRecorder, tries)
	for range tries {
		go func() { answers <- s.Login("ana", "guess", "192.0.2.1") }()
	}
	checked, refused := 0, 0
	for range tries { // each try is either checked (and held) or answered at once
		select {
		case <-bs.entered:
			checked++
		case w := <-answers:
			refused++
			if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") != "1" {
				t.Errorf("a try beside %d under way = %d Retry-After %q, want 429 after 1 s", checked, w.Code, w.Header().Get("Retry-After"))
			}
		}
	}
	close(bs.release)
	for range checked { // 401, or 503 when the hashes queue too long for the cores
		if w := <-answers; w.Code != http.StatusUnauthorized && w.Code != http.StatusServiceUnavailable {
			t.Errorf("a checked wrong password = %d, want 401", w.Code)
		}
	}
	if checked != people.AccountFailures {
		t.Errorf("%d tries at once: %d checked, want %d", tries, checked, people.AccountFailures)
	}
}
