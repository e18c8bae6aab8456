package board

import (
	"net/url"
	"strconv"

	"kashi/api"
	"kashi/phrase"
	"kashi/views"
)

// Helpers of the board templates and of the hand-written rows in board_rows.go. The strings a
// card needs are built once here rather than with fmt per card.

// gpu card states, in gpuClasses order.
const (
	cardFree = iota
	cardBusy
	cardIdle
	cardStale
)

// gpuClasses[state][longIdle][saturated] is the class attribute of a card.
var gpuClasses = func() (c [4][2][2]string) {
	names := [4]string{"gpu free", "gpu busy", "gpu idle", "gpu stale"}
	for s, name := range names {
		for li := range 2 {
			for sat := range 2 {
				v := name
				if li == 1 {
					v += " long-idle"
				}
				if sat == 1 {
					v += " saturated"
				}
				c[s][li][sat] = v
			}
		}
	}
	return c
}()

// cardState is a card's class index for its class and status badge, with its marks.
func cardState(g views.BoardGPU) (state int, longIdle, saturated bool) {
	switch g.State {
	case api.GPUFree:
		state = cardFree
	case api.GPUIdle:
		state = cardIdle
	case api.GPUBusy:
		state = cardBusy
	default:
		state = cardStale
	}
	return state, g.LongIdle, g.LongSaturated
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// nodeClass is the class attribute of a node row.
func nodeClass(state string) string {
	switch state {
	case "ready":
		return "node ready"
	case "draining":
		return "node draining"
	case "lost":
		return "node lost"
	}
	return "node"
}

// narrowed reports whether the filter leaves some cards out.
func (f BoardFilter) narrowed() bool {
	return f.Pool != "" || f.Spec != "" || f.Project != "" || f.Owner != "" || f.State != ""
}

// query is the board's URL with the filter in view v, on its first page; empty and default
// values are left out. The view is always named: which one a bare URL opens depends on
// the count of cards (the handler's defaultView).
func (f BoardFilter) query(v string) string {
	return f.pageQuery(v, 1)
}

// pageQuery is query on page n.
func (f BoardFilter) pageQuery(v string, n int) string {
	q := url.Values{}
	for _, kv := range [][2]string{{"view", v}, {"pool", f.Pool}, {"spec", f.Spec}, {"project", f.Project},
		{"owner", f.Owner}, {"state", f.State}, {"sort", f.Sort}} {
		if kv[1] != "" && !(kv[0] == "sort" && kv[1] == SortNode) {
			q.Set(kv[0], kv[1])
		}
	}
	if n > 1 {
		q.Set("page", strconv.Itoa(n))
	}
	if len(q) == 0 {
		return "/"
	}
	return "/?" + q.Encode()
}

// pageName names a page of the board by the pools of its first and last node and its
// count of cards.
func pageName(l phrase.Locale, p BoardPage) string {
	if p.First == p.Last {
		return l.T("board.page", p.First, l.Int(p.Cards))
	}
	return l.T("board.page", p.First+" – "+p.Last, l.Int(p.Cards))
}
