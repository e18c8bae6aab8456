package board

import (
	"context"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/a-h/templ"

	"kashi/api"
	"kashi/phrase"
	"kashi/views"
)

// Node rows and GPU cards are the hot path of the board: a large fleet has thousands of cards,
// redrawn every five seconds for every open tab. templ spends a formatting call and an
// allocation on each expression, which at ~20 expressions a card missed the budget (≤ 5 ms for
// 4,096 cards) by four times, so the rows are written here by hand, one pooled buffer per
// node, with every label looked up and escaped once per render. The markup is what a templ
// component would write; the golden file and the goquery tests hold it in place.

// rowText is the text node rows and cards need, looked up and HTML-escaped once per render.
type rowText struct {
	l                      phrase.Locale
	ready, draining, lost  string
	nodeUtil, nodeMem      string
	seenBefore, seenAfter  string // around the time of "node.last_seen"
	gpu, free, busy, stale string
	util, mem              string
	saturated, unmanaged   string
	temp, power, task      string
	noTask, region         string
	heldBefore, heldAfter  string // around the owner and duration of "gpu.held_by"

	idleBefore, idleAfter string // around the duration of "gpu.idle_for"
	satBefore, satAfter   string // around the duration of "gpu.saturated_for"

	// booked is the holder markup of a free card held for each of the board's bookings.
	booked []string
}

func newRowText(l phrase.Locale) *rowText {
	esc := func(s string) string { return string(appendEscaped(nil, s)) }
	rt := &rowText{
		l:         l,
		ready:     esc(l.T("node.state.ready")),
		draining:  esc(l.T("node.state.draining")),
		lost:      esc(l.T("node.state.lost")),
		nodeUtil:  esc(l.T("node.util")),
		nodeMem:   esc(l.T("node.memory")),
		gpu:       esc(l.T("gpu.name")),
		free:      esc(views.GpuStateText(l, api.GPUFree)),
		busy:      esc(views.GpuStateText(l, api.GPUBusy)),
		stale:     esc(views.GpuStateText(l, api.GPUStale)),
		util:      esc(l.T("gpu.util")),
		mem:       esc(l.T("gpu.memory")),
		saturated: esc(l.T("gpu.saturated")),
		unmanaged: esc(l.T("gpu.unmanaged")),
		temp:      esc(l.T("gpu.temp")),
		power:     esc(l.T("gpu.power")),
		task:      esc(l.T("gpu.task")),
		noTask:    esc(l.T("gpu.no_task")),
		region:    esc(l.T("node.region")),
	}
	rt.idleBefore, rt.idleAfter, _ = strings.Cut(esc(views.GpuStateText(l, api.GPUIdle)), "%s")
	rt.satBefore, rt.satAfter, _ = strings.Cut(esc(l.T("gpu.saturated_for")), "%s")
	rt.seenBefore, rt.seenAfter, _ = strings.Cut(esc(l.T("node.last_seen")), "%s")
	rt.heldBefore, rt.heldAfter, _ = strings.Cut(esc(l.T("gpu.held_for")), "%s")
	return rt
}

var rowBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// nodeRows writes a <section> per node: its header, then its cards.
func nodeRows(l phrase.Locale, d BoardData) templ.Component {
	return templ.ComponentFunc(func(_ context.Context, w io.Writer) error {
		rt := newRowText(l)
		rt.booked = bookedLabels(l, d)
		return writeNodes(w, d, func(b []byte, n *views.BoardNode) []byte { return appendNodeRow(b, rt, d, n) })
	})
}

// writeNodes writes each node of d as appendNode makes it, through one pooled buffer.
func writeNodes(w io.Writer, d BoardData, appendNode func(b []byte, n *views.BoardNode) []byte) error {
	bp := rowBuffers.Get().(*[]byte)
	defer rowBuffers.Put(bp)
	for i := range d.Nodes {
		*bp = appendNode((*bp)[:0], &d.Nodes[i])
		if _, err := w.Write(*bp); err != nil {
			return err
		}
	}
	return nil
}

func appendNodeRow(b []byte, rt *rowText, d BoardData, n *views.BoardNode) []byte {
	b = append(b, `<section class="`...)
	b = append(b, nodeClass(n.State)...)
	b = append(b, `" data-testid="node-row" data-node="`...)
	b = appendEscaped(b, n.Hostname)
	b = append(b, `"><header class="node-head"><h2 class="host"><a href="/nodes/`...)
	b = strconv.AppendInt(b, n.ID, 10)
	b = append(b, `">`...)
	b = appendEscaped(b, n.Hostname)
	b = append(b, `</a></h2><span class="where">`...)
	b = appendEscaped(b, n.Pool)
	b = append(b, ` · `...)
	b = appendEscaped(b, n.Spec)
	b = append(b, `</span>`...)
	if n.Region != "" {
		b = append(b, `<span class="region" data-testid="node-region" title="`...)
		b = append(b, rt.region...)
		b = append(b, `">`...)
		b = appendEscaped(b, n.Region)
		if n.Zone != "" {
			b = append(b, ` / `...)
			b = appendEscaped(b, n.Zone)
		}
		b = append(b, `</span>`...)
	}
	ago := rt.l.Ago(d.Now.Sub(n.LastSeen))
	b = append(b, `<span class="badge state" title="`...)
	b = appendAround(b, rt.seenBefore, ago, rt.seenAfter)
	b = append(b, `">`...)
	switch n.State {
	case "ready":
		b = append(b, rt.ready...)
	case "draining":
		b = append(b, rt.draining...)
	case "lost":
		b = append(b, rt.lost...)
	default:
		b = appendEscaped(b, n.State)
	}
	b = append(b, `</span>`...)
	if n.State == "lost" {
		b = append(b, `<span class="seen">`...)
		b = appendAround(b, rt.seenBefore, ago, rt.seenAfter)
		b = append(b, `</span>`...)
	}
	b = append(b, `<span class="stat"><span class="k">`...)
	b = append(b, rt.nodeUtil...)
	b = append(b, `</span> `...)
	b = append(b, rt.l.Percent(n.MeanUtil)...)
	b = append(b, `</span><span class="stat"><span class="k">`...)
	b = append(b, rt.nodeMem...)
	b = append(b, `</span> `...)
	b = phrase.AppendMiBOf(b, n.MemUsedMiB, n.MemTotalMiB)
	b = append(b, `</span></header><ol class="gpus">`...)
	for i := range n.GPUs {
		b = appendGPUCard(b, rt, d, &n.GPUs[i])
	}
	return append(b, `</ol></section>`...)
}

func appendGPUCard(b []byte, rt *rowText, d BoardData, g *views.BoardGPU) []byte {
	state, longIdle, saturated := cardState(*g)
	b = append(b, `<li class="`...)
	b = append(b, gpuClasses[state][b2i(longIdle)][b2i(saturated)]...)
	b = append(b, `" data-testid="gpu-card" data-gpu="`...)
	b = strconv.AppendInt(b, g.ID, 10)
	if g.UUID != "" { // an admin's board
		b = append(b, `" data-uuid="`...)
		b = appendEscaped(b, g.UUID)
	}
	b = append(b, `" title="`...)
	if g.UUID != "" {
		b = appendEscaped(b, g.UUID)
		b = append(b, '\n')
	}
	b = append(b, rt.temp...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(g.TempC), 10)
	b = append(b, " °C · "...)
	b = append(b, rt.power...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(g.PowerW), 10)
	b = append(b, " W\n"...)
	if g.Held {
		b = append(b, rt.task...)
		b = append(b, " #"...)
		b = strconv.AppendInt(b, g.TaskID, 10)
		b = append(b, ' ')
		b = appendEscaped(b, g.Task)
	} else {
		b = append(b, rt.noTask...)
	}

	b = append(b, `"><div class="gpu-head"><a class="idx" data-testid="card-gpu" href="/gpus/`...)
	b = strconv.AppendInt(b, g.ID, 10)
	b = append(b, `">`...)
	b = append(b, rt.gpu...)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(g.Index), 10)
	b = append(b, `</a>`...)
	switch {
	case state == cardStale:
		b = appendBadge(b, rt.stale)
	case state == cardFree:
		b = appendBadge(b, rt.free)
	case longIdle:
		b = append(b, `<span class="badge" data-testid="label-long-idle">`...)
		b = appendAround(b, rt.idleBefore, rt.l.Duration(g.IdleFor), rt.idleAfter)
		b = append(b, `</span>`...)
	case state == cardIdle:
		b = append(b, `<span class="badge">`...)
		b = appendAround(b, rt.idleBefore, rt.l.Duration(g.IdleFor), rt.idleAfter)
		b = append(b, `</span>`...)
	default:
		b = appendBadge(b, rt.busy)
	}

	b = append(b, `</div><div class="holder">`...)
	if g.Held {
		b = append(b, `<span class="project">`...)
		b = appendEscaped(b, g.Project)
		b = append(b, `</span><a class="task" data-testid="card-task" href="/tasks/`...)
		b = strconv.AppendInt(b, g.TaskID, 10)
		b = append(b, `">`...)
		b = appendEscaped(b, g.Task)
		b = append(b, `</a><span class="owner" data-testid="card-owner">`...)
		b = appendEscaped(b, g.Owner)
		b = append(b, `</span><span class="since" data-testid="card-since">`...)
		b = appendAround(b, rt.heldBefore, rt.l.Duration(g.HeldFor), rt.heldAfter)
		b = append(b, `</span>`...)
	} else if g.BookedBy > 0 {
		b = append(b, rt.booked[g.BookedBy-1]...)
	} else {
		b = append(b, `<span class="project none" aria-hidden="true">—</span>`...)
	}

	b = append(b, `</div><div class="metric"><span class="k">`...)
	b = append(b, rt.util...)
	b = append(b, `</span><span class="v">`...)
	b = append(b, rt.l.Percent(g.UtilPct)...)
	b = append(b, `</span><span class="bar util" aria-hidden="true"><span style="`...)
	b = append(b, views.BarWidth(g.UtilPct)...)
	b = append(b, `;"></span></span></div><div class="metric"><span class="k">`...)
	b = append(b, rt.mem...)
	b = append(b, `</span><span class="v">`...)
	b = phrase.AppendMiBOf(b, g.MemoryUsedMiB, g.MemoryTotalMiB)
	b = append(b, `</span><span class="bar mem" aria-hidden="true"><span style="`...)
	b = append(b, views.BarWidth(phrase.Share(g.MemoryUsedMiB, g.MemoryTotalMiB))...)
	b = append(b, `;"></span></span></div><div class="flags"><span class="env" data-testid="card-env"><span title="`...)
	b = append(b, rt.temp...)
	b = append(b, `">`...)
	b = strconv.AppendInt(b, int64(g.TempC), 10)
	b = append(b, ` °C</span> · <span title="`...)
	b = append(b, rt.power...)
	b = append(b, `">`...)
	b = strconv.AppendInt(b, int64(g.PowerW), 10)
	b = append(b, ` W</span></span>`...)

	if saturated {
		b = append(b, `<span class="label sat" data-testid="label-saturated" title="`...)
		b = appendAround(b, rt.satBefore, rt.l.Duration(g.SaturatedFor), rt.satAfter)
		b = append(b, `">`...)
		b = append(b, rt.saturated...)
		b = append(b, `</span>`...)
	}
	if g.UnmanagedMiB > 0 {
		b = append(b, `<span class="label sat unmanaged" data-testid="label-unmanaged" title="`...)
		b = appendEscaped(b, g.UnmanagedWho)
		b = append(b, `">`...)
		b = append(b, rt.unmanaged...)
		b = append(b, ' ')
		b = strconv.AppendInt(b, g.UnmanagedMiB, 10)
		b = append(b, ` MiB</span>`...)
	}
	return append(b, `</div></li>`...)
}

// bookedLabels are the holder markup of a free card held for each of d's bookings: "Booked ·
// vision", titled with the window.
func bookedLabels(l phrase.Locale, d BoardData) []string {
	out := make([]string, len(d.Bookings))
	for i, k := range d.Bookings {
		var b []byte
		b = append(b, `<span class="project booked" data-testid="card-booked" title="`...)
		b = appendEscaped(b, l.T("board.booking.window", k.Project, views.BookingWindow(k)))
		b = append(b, `">`...)
		b = appendEscaped(b, l.T("board.booking.card", k.Project))
		out[i] = string(append(b, `</span>`...))
	}
	return out
}

// appendBadge appends a status badge; text is escaped already.
func appendBadge(b []byte, text string) []byte {
	b = append(b, `<span class="badge">`...)
	b = append(b, text...)
	return append(b, `</span>`...)
}

// appendAround appends s, escaped, between the escaped before and after.
func appendAround(b []byte, before, s, after string) []byte {
	b = append(b, before...)
	b = appendEscaped(b, s)
	return append(b, after...)
}

// appendEscaped appends s escaped for HTML text and quoted attribute values, as
// html.EscapeString (and so templ) does.
func appendEscaped(b []byte, s string) []byte {
	last := 0
	for i := 0; i < len(s); i++ {
		var esc string
		switch s[i] {
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '&':
			esc = "&amp;"
		case '"':
			esc = "&#34;"
		case '\'':
			esc = "&#39;"
		default:
			continue
		}
		b = append(b, s[last:i]...)
		b = append(b, esc...)
		last = i + 1
	}
	return append(b, s[last:]...)
}
