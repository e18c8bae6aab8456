package scaler

import (
	"time"

	"kashi/models"
)

// ReclaimPolicy is how idle tasks lose their cards. A zero field takes its default, which
// the pool settings table (models.PoolFields) gives.
type ReclaimPolicy struct {
	// Off turns idle reclaim off.
	Off bool
	// IdleTime: a task whose cards all stayed under the idle threshold this long gets a
	// notice.
	IdleTime time.Duration
	// Grace: a notice without an answer this long is followed by the stop.
	Grace time.Duration
	// KeepFor is how long a "keep" answer holds the cards.
	KeepFor time.Duration
	// MaxKeepsPerDay caps the keeps of one task in a day.
	MaxKeepsPerDay int
	// SetupGrace: idle time counts only from this long after a task started (many jobs load
	// data first).
	SetupGrace time.Duration
	// Location is the zone the notices' times are written in, the one pages show (the
	// billing time zone, Config.Location); nil is UTC.
	Location *time.Location
}

// WithDefaults returns p with every zero or negative field set to its default. It neither
// reflects nor allocates (see Policy.WithDefaults).
func (p ReclaimPolicy) WithDefaults() ReclaimPolicy {
	d := defaultPolicy.Reclaim
	orDefault(&p.IdleTime, d.IdleTime)
	orDefault(&p.Grace, d.Grace)
	orDefault(&p.KeepFor, d.KeepFor)
	orDefault(&p.MaxKeepsPerDay, d.MaxKeepsPerDay)
	orDefault(&p.SetupGrace, d.SetupGrace)
	return p
}

// ReclaimOf is a task's reclaim policy, with defaults: its pool's settings (the defaults for a
// pool without a configuration), then each field its project's override sets.
func ReclaimOf(s models.ReclaimSettings) ReclaimPolicy {
	var p ReclaimPolicy
	if s.Pool != nil {
		p = PolicyOf(*s.Pool).Reclaim
	}
	o := s.Override
	sec := func(s int64) time.Duration { return time.Duration(s) * time.Second }
	p.Off = p.Off || o.Never
	for _, f := range []struct {
		to *time.Duration
		s  int64
	}{{&p.IdleTime, o.IdleS}, {&p.Grace, o.GraceS}, {&p.KeepFor, o.KeepForS}, {&p.SetupGrace, o.SetupGraceS}} {
		if f.s > 0 {
			*f.to = sec(f.s)
		}
	}
	if o.KeepsPerDay > 0 {
		p.MaxKeepsPerDay = o.KeepsPerDay
	}
	return p.WithDefaults()
}
