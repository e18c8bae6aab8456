package people

import (
	"net/http"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/time/rate"

	"kashi/handlers"
)

// Every sign-in request (the password form's post, the start of and the return from a
// directory's or chat's sign-in) spends a token of its client address's bucket, whether it
// succeeds or not; an empty bucket answers 429 with the wait. Besides the failed-login
// throttle (login_throttle.go), this bounds what one address makes Kashi ask of a directory
// or chat, and how many sign-ins under way it keeps. The buckets live in memory, per replica.
const (
	// LoginBurst sign-in requests may come from one address at once; then one more every
	// LoginRefill (30 a minute).
	LoginBurst  = 30
	LoginRefill = 2 * time.Second
)

// loginRate holds the buckets of sign-in requests by client address.
type loginRate struct {
	mu    sync.Mutex
	addrs map[string]*rate.Limiter
}

func newLoginRate() *loginRate { return &loginRate{addrs: make(map[string]*rate.Limiter)} }

// take spends a token of addr's bucket at now, or returns how long until one is there.
func (lr *loginRate) take(addr string, now time.Time) time.Duration {
	lr.mu.Lock()
	defer lr.mu.Unlock()
	r := bucket(lr.addrs, addr, LoginRefill, LoginBurst, now).ReserveN(now, 1)
	if wait := r.DelayFrom(now); wait > 0 {
		r.CancelAt(now)
		return wait
	}
	return 0
}

// tooMany answers a sign-in request of an address past its rate: 429 with Retry-After and the
// login page saying the wait, in its language; ok is false when the request may go on.
func (h *Handler) tooMany(c echo.Context, next string) (answered bool, err error) {
	wait := h.loginRate.take(handlers.ClientAddr(c), h.Now())
	if wait <= 0 {
		return false, nil
	}
	return true, h.loginProblem(c, http.StatusTooManyRequests, next, handlers.Locale(c).T("login.too_many", retryAfter(c, wait)))
}
