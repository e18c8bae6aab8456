// Package demo runs the embedded demo: a simulated fleet whose machines run the real agent
// code on simulated GPUs, and a stream of tasks submitted through the same HTTP API people
// use, all on a clock that runs faster than real time.
package demo

import "time"

// Clock returns a clock that starts at start and runs speed times faster than real time.
func Clock(start time.Time, speed float64) func() time.Time {
	origin := time.Now()
	return func() time.Time {
		return start.Add(time.Duration(float64(time.Since(origin)) * speed))
	}
}

// Morning is 08:30 in Asia/Shanghai on the day of t: the demo's clock starts there, so the
// simulated day's peak comes within minutes and its trough later on.
func Morning(t time.Time) time.Time {
	l := t.In(shanghai)
	return time.Date(l.Year(), l.Month(), l.Day(), 8, 30, 0, 0, shanghai)
}
