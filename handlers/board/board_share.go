package board

import (
	"sync"
	"time"

	boardview "kashi/views/board"
)

// One render of a board view serves every viewer of that view while the data it was made
// from holds: with 50 people on a board of 32,768 cards refreshing every five seconds, the
// viewers who ask between two changes (and all who ask while a render is under way) share
// one build and write of it. Without a lag a render is never older than the data (the board
// and the API tell the same story at the same moment, proof/agree_test.go): a new reading or
// change makes the next request render again. With one (the store's BoardLag: a server's
// board may show nodes and holders that far behind) a render also serves, whatever changed,
// until it is the lag old: under a fleet's stream of readings and submits the data changes
// many times a second, and each viewer's refresh would otherwise build the whole board again.
// Within the same data a render serves for at most the interval, since the board shows
// durations counted to its clock. A render holds nothing of who asked but what its key names
// (language, admin), and the page around it (the layout with the viewer's name, role and
// CSRF token) is written for each request (Board).
// shareKey is what a shared render depends on besides the data and the clock.
type shareKey struct {
	filter  boardview.BoardFilter // as the URL gave it (View "" is the default view)
	lang    string
	admin   bool // admins see each card's UUID
	partial bool // HX-Request: the grid alone
}

// sharedRender is one render: its bytes and their compression (board_gzip.go), their ETag,
// the data version and clock it was made at, and when (on the wall clock, which the lag
// counts on).
type sharedRender struct {
	gzipPart
	etag    string
	version uint64
	at      time.Time
	made    time.Time
	// ready is closed once body is written or err set; the viewers who asked meanwhile wait.
	ready chan struct{}
	err   error
}

// maxShared bounds the renders kept: views × filters × languages × roles in use at once.
// A render of a page of the grid is about 1 MB.
const maxShared = 64

// boardShare keeps the latest render of each view.
type boardShare struct {
	every time.Duration
	mu    sync.Mutex
	m     map[shareKey]*sharedRender
}

func newBoardShare(every time.Duration) *boardShare {
	return &boardShare{every: every, m: map[shareKey]*sharedRender{}}
}

// fresh reports whether r still serves a request at now and data version v: made from the
// same data or less than lag ago, at the same instant or within the interval.
func (s *boardShare) fresh(r *sharedRender, now time.Time, v uint64, lag time.Duration) bool {
	if r.version != v && time.Since(r.made) >= lag {
		return false
	}
	return r.at.Equal(now) || s.every > 0 && !now.Before(r.at) && now.Sub(r.at) < s.every
}

// get returns the render of k for now and version v, made by render when none serves (fresh,
// with the lag): one render at a time per key, which every viewer asking meanwhile shares. A
// failed render is not kept.
func (s *boardShare) get(k shareKey, now time.Time, v uint64, lag time.Duration, render func() ([]byte, error)) (*sharedRender, error) {
	s.mu.Lock()
	if r, ok := s.m[k]; ok && s.fresh(r, now, v, lag) {
		s.mu.Unlock()
		<-r.ready
		return r, r.err
	}
	r := &sharedRender{version: v, at: now, made: time.Now(), ready: make(chan struct{})}
	s.evict(now)
	s.m[k] = r
	s.mu.Unlock()

	var body []byte
	if body, r.err = render(); r.err == nil {
		r.etag = etagOf(body)
		r.gzipPart, r.err = deflatePart(body)
	}
	if r.err != nil {
		s.mu.Lock()
		if s.m[k] == r {
			delete(s.m, k)
		}
		s.mu.Unlock()
	}
	close(r.ready)
	return r, r.err
}

// evict drops the renders past their interval and, at the bound, the oldest; s.mu is held.
func (s *boardShare) evict(now time.Time) {
	for k, r := range s.m {
		if now.Sub(r.at) >= s.every {
			delete(s.m, k)
		}
	}
	for len(s.m) >= maxShared {
		var oldest shareKey
		first := true
		for k, r := range s.m {
			if first || r.at.Before(s.m[oldest].at) {
				oldest, first = k, false
			}
		}
		delete(s.m, oldest)
	}
}
