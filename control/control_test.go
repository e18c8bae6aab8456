package control

import (
	"testing"
	"time"

	"kashi/scaler"
)

// TestIdleEventOf: the chat message of an idle notice gets the loop's detail in English,
// without the task it names first (the message names the task itself).
func TestIdleEventOf(t *testing.T) {
	now := time.Date(2026, 3, 2, 14, 0, 0, 0, time.UTC)
	acts := scaler.DecideReclaim([]scaler.IdleTask{{TaskID: 7, Owner: "bob", IdleSince: now.Add(-42 * time.Minute)}}, now)
	if len(acts) != 1 {
		t.Fatalf("DecideReclaim = %v, want one notice", acts)
	}
	ev, ok := idleEventOf(acts[0])
	if want := "cards idle for 42m ≥ 30m; stopped at 14:30 UTC unless kept"; !ok || ev.Detail != want || ev.TaskID != 7 {
		t.Errorf("idleEventOf(notice) = %+v, %v; want task 7 with %q", ev, ok, want)
	}
}
