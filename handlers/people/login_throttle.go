package people

import (
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Login throttling: failed logins spend tokens of two buckets, one per account name and one
// per client address; an empty bucket refuses further tries (429) until it refills. The
// right password is refused too while throttled, so guessing gains nothing, and refused
// tries write no audit row, so a flood cannot grow the audit log faster than the buckets
// refill. The buckets live in memory, per replica.
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

// loginThrottle holds the buckets of failed logins.
type loginThrottle struct {
	mu       sync.Mutex
	accounts map[string]*rate.Limiter
	addrs    map[string]*rate.Limiter
}

func newLoginThrottle() *loginThrottle {
	return &loginThrottle{accounts: make(map[string]*rate.Limiter), addrs: make(map[string]*rate.Limiter)}
}

// wait is how long a login of account from addr must wait at now; 0 means it may try.
func (lt *loginThrottle) wait(account, addr string, now time.Time) time.Duration {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	return max(waitOf(lt.accounts[account], now), waitOf(lt.addrs[addr], now))
}

// fail records a failed login of account from addr at now.
func (lt *loginThrottle) fail(account, addr string, now time.Time) {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	bucket(lt.accounts, account, AccountRefill, AccountFailures, now).AllowN(now, 1)
	bucket(lt.addrs, addr, AddressRefill, AddressFailures, now).AllowN(now, 1)
}

// succeed forgets the account's failures after the right password.
func (lt *loginThrottle) succeed(account string) {
	lt.mu.Lock()
	defer lt.mu.Unlock()
	delete(lt.accounts, account)
}

// waitOf is the time until lim has a whole token at now.
func waitOf(lim *rate.Limiter, now time.Time) time.Duration {
	if lim == nil {
		return 0
	}
	tokens := lim.TokensAt(now)
	if tokens >= 1 {
		return 0
	}
	return time.Duration(math.Ceil((1 - tokens) / float64(lim.Limit()) * float64(time.Second)))
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
