package views

import (
	"strconv"
	"time"

	"github.com/a-h/templ"

	"kashi/api"
	"kashi/phrase"
)

// widths holds the style attributes of bars 0% to 100% wide.
var widths = func() (w [101]templ.SafeCSS) {
	for i := range w {
		w[i] = templ.SafeCSS("width:" + strconv.Itoa(i) + "%")
	}
	return w
}()

// BarWidth is the style of a bar filled p percent, clamped to 0–100.
func BarWidth(p int) templ.SafeCSS {
	return widths[max(0, min(100, p))]
}

// GpuStateText is a card's state badge in the page's language; an idle card's has a %s for
// how long it has been idle.
func GpuStateText(l phrase.Locale, state api.GPUState) string {
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

// WithCurrent returns opts, plus cur at the end when it is set and not among them, so a
// filter on a value that has since gone stays visible and selected.
func WithCurrent(opts []string, cur string) []string {
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

// Clock is the time of day the board was drawn, for the "Updated" line.
func Clock(t time.Time) string { return t.Format("15:04:05") }

// WithAll is opts with each of cur not among them added at the end, in cur's order.
func WithAll(opts, cur []string) []string {
	for _, c := range cur {
		opts = WithCurrent(opts, c)
	}
	return opts
}

// BookingWindow is a booking's window as the board shows it: "12-04 09:00–18:00", or with
// the end's day when it ends on another day.
func BookingWindow(k BoardBooking) string {
	end := k.Ends.Format("15:04")
	if k.Ends.Format("01-02") != k.Starts.Format("01-02") {
		end = k.Ends.Format("01-02 15:04")
	}
	return k.Starts.Format("01-02 15:04") + "–" + end
}
