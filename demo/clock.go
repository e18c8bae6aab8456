// Package demo runs the embedded demo: a simulated fleet whose machines run the real agent
// code on simulated GPUs, and a stream of tasks submitted through the same HTTP API people
// use, all on a clock that runs faster than real time.
package demo

import (
	"sync"
	"time"
)

// Clock is the demo's clock: it runs speed times faster than real time, and it can be held
// still (a presenter walking through a page; a check reading every page at one instant)
// and let go again, from where it stood.
type Clock struct {
	mu     sync.Mutex
	start  time.Time // the clock's reading at origin
	origin time.Time // real time
	speed  float64
	held   bool
}

// NewClock returns a clock that starts at start and runs speed times faster than real time.
func NewClock(start time.Time, speed float64) *Clock {
	return &Clock{start: start, origin: time.Now(), speed: speed}
}

// Now reads the clock.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now()
}

func (c *Clock) now() time.Time {
	if c.held {
		return c.start
	}
	return c.start.Add(time.Duration(float64(time.Since(c.origin)) * c.speed))
}

// Hold stops the clock where it is; the loops and agents go on, at that instant. It reports
// the reading it holds.
func (c *Clock) Hold() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.start, c.held = c.now(), true
	return c.start
}

// Release lets a held clock run again from the reading it held.
func (c *Clock) Release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held {
		c.origin, c.held = time.Now(), false
	}
}

// Morning is 08:30 in Asia/Shanghai on the day of t: the demo's clock starts there, so the
// simulated day's peak comes within minutes and its trough later on.
func Morning(t time.Time) time.Time {
	l := t.In(shanghai)
	return time.Date(l.Year(), l.Month(), l.Day(), 8, 30, 0, 0, shanghai)
}
