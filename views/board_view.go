package views

import (
	"net/url"
	"strconv"
	"time"

	"github.com/a-h/templ"

	"kashi/api"
	"kashi/phrase"
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

// widths holds the style attributes of bars 0% to 100% wide.
var widths = func() (w [101]templ.SafeCSS) {
	for i := range w {
		w[i] = templ.SafeCSS("width:" + strconv.Itoa(i) + "%")
	}
	return w
}()

// barWidth is the style of a bar filled p percent, clamped to 0–100.
func barWidth(p int) templ.SafeCSS {
	return widths[max(0, min(100, p))]
}

// gpuStateText is a card's state badge in the page's language; an idle card's has a %s for
// how long it has been idle.
func gpuStateText(l phrase.Locale, state api.GPUState) string {
	switch state {
	case api.GPUFree:
		return l.T("gpu.free")
	case api.GPUBusy:
		return l.T("gpu.busy")
	case api.GPUIdle:
		return l.T("gpu.idle_for")
	case api.GPUStale:
		return l.T("gpu.stale")
	}
	return string(state)
}

// cardState is a card's class index for its class and status badge, with its marks.
func cardState(g BoardGPU) (state int, longIdle, saturated bool) {
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

// withCurrent returns opts, plus cur at the end when it is set and not among them, so a
// filter on a value that has since gone stays visible and selected.
func withCurrent(opts []string, cur string) []string {
	if cur == "" {
		return opts
	}
	for _, o := range opts {
		if o == cur {
			return opts
		}
	}
	return append(opts[:len(opts):len(opts)], cur)
}

// clock is the time of day the board was drawn, for the "Updated" line.
func clock(t time.Time) string { return t.Format("15:04:05") }

// narrowed reports whether the filter leaves some cards out.
func (f BoardFilter) narrowed() bool {
	return f.Pool != "" || f.Spec != "" || f.Project != "" || f.Owner != "" || f.State != ""
}

// query is the board's URL with the filter in view v; empty and default values are left out.
func (f BoardFilter) query(v string) string {
	q := url.Values{}
	for _, kv := range [][2]string{{"view", v}, {"pool", f.Pool}, {"spec", f.Spec}, {"project", f.Project},
		{"owner", f.Owner}, {"state", f.State}, {"sort", f.Sort}} {
		if kv[1] != "" && !(kv[0] == "view" && kv[1] == ViewCards) && !(kv[0] == "sort" && kv[1] == SortNode) {
			q.Set(kv[0], kv[1])
		}
	}
	if len(q) == 0 {
		return "/"
	}
	return "/?" + q.Encode()
}

// withAll is opts with each of cur not among them added at the end, in cur's order.
func withAll(opts, cur []string) []string {
	for _, c := range cur {
		opts = withCurrent(opts, c)
	}
	return opts
}

// bookingWindow is a booking's window as the board shows it: "12-04 09:00–18:00", or with
// the end's day when it ends on another day.
func bookingWindow(k BoardBooking) string {
	end := k.Ends.Format("15:04")
	if k.Ends.Format("01-02") != k.Starts.Format("01-02") {
		end = k.Ends.Format("01-02 15:04")
	}
	return k.Starts.Format("01-02 15:04") + "–" + end
}
