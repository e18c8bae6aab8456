package board

import (
	"context"
	"io"
	"strconv"
	"strings"

	"github.com/a-h/templ"

	"kashi/api"
	"kashi/phrase"
	"kashi/views"
)

// The compact board (gpudash-style): one small cell per GPU, coloured by its state, with its
// owner and an hour of use as a strip, so that 512 nodes × 8 GPUs fit on one desktop screen.
// Like the card rows (board_rows.go) it is written by hand into one pooled buffer per node:
// 4,096 cells are redrawn every five seconds per open tab.

// Compact states of a card, in legend order.
const (
	CompactActive    = "active"    // held, utilization at or over the active threshold
	CompactLow       = "low"       // held, between the idle and the active threshold
	CompactIdle      = "idle"      // held, under the idle threshold
	CompactSaturated = "saturated" // memory or utilization at the mark for longer than its mark
	CompactNoData    = "nodata"    // no recent reading
	CompactUnmanaged = "unmanaged" // memory held by processes of no task
	CompactBooked    = "booked"    // held by no task, kept for a reservation (BoardGPU.BookedBy)
	CompactFree      = "free"      // held by no task
)

// CompactStates lists the compact states in legend order.
var CompactStates = []string{CompactActive, CompactLow, CompactIdle, CompactSaturated, CompactNoData, CompactUnmanaged, CompactBooked, CompactFree}

// CardFacts are what a card's compact state depends on. The handler keeps them for every
// card of a selection (the legend's counts and the state filter read them) and makes the
// whole card (views.BoardGPU) only for the shown page.
type CardFacts struct {
	State         api.GPUState
	Held          bool
	BookedBy      int
	LongSaturated bool
	UnmanagedMiB  int64
	UtilPct       int
}

// Compact is the card's compact state: no data first (its readings are old), then use
// outside tasks, long saturation, then booked (free but kept for a reservation), free, idle,
// low or active by utilization.
func (f CardFacts) Compact(activePct int) string {
	switch {
	case f.State == api.GPUStale:
		return CompactNoData
	case f.UnmanagedMiB > 0:
		return CompactUnmanaged
	case f.LongSaturated:
		return CompactSaturated
	case !f.Held && f.BookedBy > 0:
		return CompactBooked
	case !f.Held:
		return CompactFree
	case f.State == api.GPUIdle:
		return CompactIdle
	case f.UtilPct < activePct:
		return CompactLow
	}
	return CompactActive
}

// CompactState is g's compact state (CardFacts.Compact).
func CompactState(g *views.BoardGPU, activePct int) string {
	return CardFacts{State: g.State, Held: g.Held, BookedBy: g.BookedBy, LongSaturated: g.LongSaturated,
		UnmanagedMiB: g.UnmanagedMiB, UtilPct: g.UtilPct}.Compact(activePct)
}

// compactStateText names a compact state.
func compactStateText(l phrase.Locale, st string) string {
	switch st {
	case CompactActive:
		return l.T("compact.active")
	case CompactLow:
		return l.T("compact.low")
	case CompactIdle:
		return l.T("compact.idle")
	case CompactSaturated:
		return l.T("compact.saturated")
	case CompactNoData:
		return l.T("compact.nodata")
	case CompactUnmanaged:
		return l.T("compact.unmanaged")
	case CompactBooked:
		return l.T("compact.booked")
	}
	return l.T("compact.free")
}

// Strip levels of BoardGPU.Strip (models' Strip* levels).
const (
	StripNone uint8 = iota
	StripIdle
	StripLow
	StripActive
)

// stripColours are the colours of strip levels, in level order.
var stripColours = [4]string{"#d1d5db", "#f59e0b", "#93c5fd", "#1e3a8a"}

// stripStops are the right edges of the twelve buckets, in percent of the strip.
var stripStops = func() (s [12]string) {
	for i := range s {
		s[i] = strconv.FormatFloat(float64(i+1)*100/12, 'f', 1, 64) + "%"
	}
	return s
}()

// appendStrip appends the style of a strip: one colour per run of equal buckets.
func appendStrip(b []byte, st *[12]uint8) []byte {
	same := true
	for _, v := range st {
		same = same && v == st[0]
	}
	if same {
		b = append(b, "background:"...)
		return append(b, stripColours[min(st[0], 3)]...)
	}
	b = append(b, "background:linear-gradient(90deg"...)
	for i, v := range st {
		if i < 11 && st[i+1] == v {
			continue
		}
		b = append(b, ',')
		b = append(b, stripColours[min(v, 3)]...)
		b = append(b, " 0 "...)
		b = append(b, stripStops[i]...)
	}
	return append(b, ')')
}

// compactText is the text of cells, looked up and escaped once per render.
type compactText struct {
	states map[string]string
	gpu    string
	util   string
	task   string
	owner  string
	strip  string
	// booked is the escaped "held for whose reservation, when" of each of the board's bookings.
	booked []string
}

func newCompactText(l phrase.Locale, d BoardData) *compactText {
	esc := func(s string) string { return string(appendEscaped(nil, s)) }
	ct := &compactText{states: map[string]string{}, gpu: esc(l.T("gpu.name")), util: esc(l.T("gpu.util")),
		task: esc(l.T("gpu.task")), owner: esc(l.T("compact.owner")), strip: esc(l.T("compact.strip"))}
	for _, st := range CompactStates {
		ct.states[st] = esc(compactStateText(l, st))
	}
	for _, k := range d.Bookings {
		ct.booked = append(ct.booked, esc(l.T("board.booking.window", k.Project, views.BookingWindow(k))))
	}
	return ct
}

// The compact grid is sized to the screen: its cells are as large as lets every node fit on
// a desktop screen of compactScreenW × compactScreenH pixels under the page's head (a 1600 ×
// 900 window), from compactMinCell pixels wide (4,096 GPUs on one screen) to compactMaxCell;
// cells are 3:2 and their text grows with them (kashi.css), and a narrower screen takes at most
// a ninth of its width a cell, so that a node of eight still fits a line.
const (
	compactScreenW = 1550
	compactScreenH = 620
	compactMinCell = 21
	compactMaxCell = 96
)

// compactCellWidth is the width in pixels of the compact grid's cells: the largest from
// compactMinCell to compactMaxCell at which the nodes, each a 4 px bar and its cells with 1 px
// between them, laid in lines 5 px apart (as the grid wraps them), fit compactScreenW ×
// compactScreenH.
func compactCellWidth(d BoardData) int {
	for w := compactMaxCell; w > compactMinCell; w-- {
		lines, x := 1, 0
		for i := range d.Nodes {
			nw := 4 + len(d.Nodes[i].GPUs)*(w+1)
			if x > 0 && x+5+nw > compactScreenW {
				lines++
				x = 0
			}
			if x > 0 {
				x += 5
			}
			x += nw
		}
		if lines*(w*2/3+2) <= compactScreenH {
			return w
		}
	}
	return compactMinCell
}

// compactSize is the style that sizes the compact grid's cells (compactCellWidth).
func compactSize(d BoardData) templ.SafeCSS {
	return templ.SafeCSS("--cw:" + strconv.Itoa(compactCellWidth(d)) + "px")
}

// compactNodes writes every node as a group of cells.
func compactNodes(l phrase.Locale, d BoardData) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		ct := newCompactText(l, d)
		return writeNodes(w, d, func(b []byte, n *views.BoardNode) []byte { return appendCompactNode(b, ct, d, n) })
	})
}

func appendCompactNode(b []byte, ct *compactText, d BoardData, n *views.BoardNode) []byte {
	b = append(b, `<div class="cn `...)
	b = append(b, strings.TrimPrefix(nodeClass(n.State), "node")...)
	b = append(b, `" data-testid="compact-node" data-node="`...)
	b = appendEscaped(b, n.Hostname)
	b = append(b, `"><a class="cnh" href="/nodes/`...)
	b = strconv.AppendInt(b, n.ID, 10)
	b = append(b, `" title="`...)
	b = appendEscaped(b, n.Hostname)
	b = append(b, ` · `...)
	b = appendEscaped(b, n.Pool)
	b = append(b, `" aria-label="`...)
	b = appendEscaped(b, n.Hostname)
	b = append(b, `"></a>`...)
	for i := range n.GPUs {
		b = appendCompactCell(b, ct, d, n, &n.GPUs[i])
	}
	return append(b, `</div>`...)
}

func appendCompactCell(b []byte, ct *compactText, d BoardData, n *views.BoardNode, g *views.BoardGPU) []byte {
	st := CompactState(g, d.ActivePct)
	b = append(b, `<a class="c c-`...)
	b = append(b, st...)
	b = append(b, `" data-testid="gpu-cell" href="/gpus/`...)
	b = strconv.AppendInt(b, g.ID, 10)
	b = append(b, `" title="`...)
	b = appendEscaped(b, n.Hostname)
	b = append(b, ' ')
	b = append(b, ct.gpu...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(g.Index), 10)
	b = append(b, ` · `...)
	b = append(b, ct.states[st]...)
	b = append(b, ` · `...)
	b = append(b, ct.util...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(g.UtilPct), 10)
	b = append(b, '%')
	if g.Held {
		b = append(b, "\n"...)
		b = append(b, ct.task...)
		b = append(b, " #"...)
		b = strconv.AppendInt(b, g.TaskID, 10)
		b = append(b, ' ')
		b = appendEscaped(b, g.Task)
		b = append(b, ` · `...)
		b = appendEscaped(b, g.Project)
		b = append(b, ` · `...)
		b = append(b, ct.owner...)
		b = append(b, ' ')
		b = appendEscaped(b, g.Owner)
	} else if g.BookedBy > 0 {
		b = append(b, "\n"...)
		b = append(b, ct.booked[g.BookedBy-1]...)
	}
	b = append(b, "\n"...)
	b = append(b, ct.strip...)
	b = append(b, `"><span>`...)
	if g.Held {
		b = appendEscaped(b, g.Owner)
	} else if g.BookedBy > 0 {
		b = appendEscaped(b, d.Bookings[g.BookedBy-1].Project)
	}
	b = append(b, `</span><i style="`...)
	b = appendStrip(b, &g.Strip)
	return append(b, `"></i></a>`...)
}
