package scaler

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestReclaimAtIsWhenDecideReclaimStops: for tasks of random starts, idle times, keeps,
// pending notices and policies whose cards stay idle, running DecideReclaim minute by minute
// (sending each notice it asks for) stops the task exactly at its ReclaimAt, and never one
// whose ReclaimAt is zero. The queue's estimates read ReclaimAt; the loop acts by
// DecideReclaim: the two must not drift apart.
func TestReclaimAtIsWhenDecideReclaimStops(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 30))
	m := time.Minute
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	mins := func(n int) time.Duration { return time.Duration(rng.IntN(n)) * m }
	for i := range 2000 {
		it := IdleTask{TaskID: int64(i), StartedAt: t0.Add(-mins(120)),
			Policy: ReclaimPolicy{Off: rng.IntN(10) == 0, IdleTime: mins(60), Grace: mins(60), SetupGrace: mins(30)}}
		if rng.IntN(5) > 0 {
			it.IdleSince = t0.Add(-mins(180))
		}
		if rng.IntN(4) == 0 {
			it.KeptUntil = t0.Add(mins(120) - 30*m)
		}
		if !it.IdleSince.IsZero() && rng.IntN(4) == 0 && !t0.Before(it.KeptUntil) {
			it.NoticeAt = t0.Add(-mins(20))
		}
		want := it.ReclaimAt(t0)
		var got time.Time
		task := it
		for now := t0; now.Before(t0.Add(12 * time.Hour)); now = now.Add(m) {
			stop := false
			for _, a := range DecideReclaim([]IdleTask{task}, now) {
				switch a.Kind {
				case ActionIdleNotice:
					task.NoticeAt = now
				case ActionClearNotice:
					task.NoticeAt = time.Time{}
				case ActionReclaim:
					stop = true
				}
			}
			if stop {
				got = now
				break
			}
		}
		if !got.Equal(want) {
			t.Fatalf("task %+v: DecideReclaim stops it at %v, ReclaimAt says %v", it, got, want)
		}
	}
}
