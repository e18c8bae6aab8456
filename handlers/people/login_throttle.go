package people

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Login throttling: failed logins spend tokens of two buckets, one per account name and one
// per client address; an empty bucket refuses further tries (429) until it refills. A try
// under way counts as spent until it ends, so tries sent at once cannot outrun the buckets.
// The right password is refused too while throttled, so guessing gains nothing, and refused
// tries write no audit row, so a flood cannot grow the audit log faster than the buckets
// refill. Password changes check the current password through the same buckets. The buckets
// live in memory, per replica.
const (
	// AccountFailures failed logins of one account may come at once; then one more every
	// AccountRefill (20 an hour).
	AccountFailures = 5
	AccountRefill   = 3 * time.Minute
	// AddressFailures failed logins may come from one address at once; then one more every
	// AddressRefill (120 an hour).
	AddressFailures = 20
	AddressRefill   = 30 * time.Second
	// maxThrottleKeys bounds the buckets kept; full buckets are dropped first.
	maxThrottleKeys = 10_000
)

// loginThrottle holds the buckets of failed logins and the tries under way.
type loginThrottle struct {
	mu       sync.Mutex
	accounts map[string]*rate.Limiter
	addrs    map[string]*rate.Limiter
	// trying counts the tries under way per account and per address.
	trying map[string]int
}

func newLoginThrottle() *loginThrottle {
	return &loginThrottle{accounts: make(map[string]*rate.Limiter), addrs: make(map[string]*rate.Limiter), trying: make(map[string]int)}
}

// loginTry is one try of a password under way; end it with failed, succeeded or done.
type loginTry struct {
	lt            *loginThrottle
	account, addr string
	ended         bool
}

// begin starts a try of account's password from addr at now, or returns how long it must
// wait: a second while only tries under way fill the buckets, else as long as it would if
// every try under way failed.
func (lt *loginThrottle) begin(account, addr string, now time.Time) (*loginTry, time.Duration) {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	a, d := "account:"+account, "addr:"+addr
	wait := max(waitOf(lt.accounts[account], lt.trying[a], AccountRefill, AccountFailures, now),
		waitOf(lt.addrs[addr], lt.trying[d], AddressRefill, AddressFailures, now))
	if wait > 0 {
		return nil, wait
	}
	lt.trying[a]++
	lt.trying[d]++
	return &loginTry{lt: lt, account: account, addr: addr}, 0
}

// failed ends the try as a wrong password at now: it spends a token of both buckets.
func (t *loginTry) failed(now time.Time) {
	t.lt.mu.Lock()
	defer t.lt.mu.Unlock()
	if t.endLocked() {
		bucket(t.lt.accounts, t.account, AccountRefill, AccountFailures, now).AllowN(now, 1)
		bucket(t.lt.addrs, t.addr, AddressRefill, AddressFailures, now).AllowN(now, 1)
	}
}

// succeeded ends the try as the right password: the account's failures are forgotten.
func (t *loginTry) succeeded() {
	t.lt.mu.Lock()
	defer t.lt.mu.Unlock()
	if t.endLocked() {
		delete(t.lt.accounts, t.account)
	}
}

// done ends the try, if failed or succeeded did not, spending nothing (it could not be
// checked).
func (t *loginTry) done() {
	t.lt.mu.Lock()
	defer t.lt.mu.Unlock()
	t.endLocked()
}

// endLocked takes the try off those under way; false when it had ended already.
func (t *loginTry) endLocked() bool {
	if t.ended {
		return false
	}
	t.ended = true
	for _, k := range []string{"account:" + t.account, "addr:" + t.addr} {
		if t.lt.trying[k]--; t.lt.trying[k] <= 0 {
			delete(t.lt.trying, k)
		}
	}
	return true
}

// waitOf is the time until a bucket (lim, which refills one token every and holds burst;
// nil when full) has a whole token at now beyond the tries under way.
func waitOf(lim *rate.Limiter, trying int, every time.Duration, burst int, now time.Time) time.Duration {
	tokens := float64(burst)
	if lim != nil {
		tokens = lim.TokensAt(now)
	}
	short := float64(trying+1) - tokens
	switch {
	case short <= 0:
		return 0
	case tokens >= 1:
		return time.Second // only tries under way stand in the way, and they end within seconds
	}
	return time.Duration(math.Ceil(short * float64(every)))
}

// bucket returns the bucket of key, making it (and first dropping full ones when there are
// too many) when there is none.
func bucket(m map[string]*rate.Limiter, key string, every time.Duration, burst int, now time.Time) *rate.Limiter {
	if lim, ok := m[key]; ok {
		return lim
	}
	if len(m) >= maxThrottleKeys {
		for k, lim := range m {
			if lim.TokensAt(now) >= float64(lim.Burst()) {
				delete(m, k)
			}
		}
	}
	lim := rate.NewLimiter(rate.Every(every), burst)
	lim.SetBurstAt(now, burst) // full at now, by the injected clock
	m[key] = lim
	return lim
}
