package agent

import (
	"testing"
	"time"

	"kashi/api"
)

// With a server that waits, a task placed on the node reaches the agent through its waiting
// request: polling is an hour apart here, so only the long poll's answer can deliver it.
func TestLongPollDeliversPlacement(t *testing.T) {
	f := newFakeServer(t)
	f.with(func() { f.longPoll = true })
	a := newTestAgent(t, f, &fakeRunner{})
	a.cfg.PollInterval = time.Hour
	runAgent(t, a)
	f.waitFor(t, "a request waiting with the empty list's ETag", func() bool { return f.changed != nil })
	f.with(func() {
		f.assign([]api.Assignment{{TaskID: 5, GPUUUIDs: []string{"GPU-0"}, Command: []string{"true"}}})
	})
	f.waitFor(t, "the task's running report", func() bool { return len(f.statuses) > 0 && f.statuses[0].TaskID == 5 })
	f.with(func() {
		if f.waits != f.polls {
			t.Errorf("%d of %d assignments requests asked to wait, want all", f.waits, f.polls)
		}
	})
}

// Against a server that answers at once (older than the long poll), the agent asks to wait
// once and then polls every PollInterval without asking again.
func TestLongPollFallsBackToPolling(t *testing.T) {
	f := newFakeServer(t)
	a := newTestAgent(t, f, &fakeRunner{})
	runAgent(t, a)
	f.waitFor(t, "polls", func() bool { return f.polls >= 5 })
	f.with(func() {
		if f.waits != 1 {
			t.Errorf("%d requests asked to wait, want the first only", f.waits)
		}
	})
}
