package board

import (
	"kashi/views"
	boardview "kashi/views/board"
)

// A board of tens of thousands of cards is shown a page at a time, and a page is cut along
// node groups: a pool that fits the rest of a page joins it, one that does not starts the
// next page, and a pool larger than a page is split between nodes. The card board holds
// cardsPerPage cards a page (128 nodes of eight, a few screens of rows); the compact grid
// gridPerPage, as many as fit one desktop screen at its smallest cells. A selection of more
// cards than a card page opens as the grid unless the URL names the view.
const (
	cardsPerPage = 1024
	gridPerPage  = 4096
	// maxPage bounds the page a URL may ask for: 32,768 cards are 32 card pages; a page past
	// the last shows the last.
	maxPage = 10000
)

// defaultView is the view a board of nodes opens in when the URL names none: the cards up to
// a page of them, the compact grid above.
func defaultView(nodes []views.BoardNode) string {
	n := 0
	for i := range nodes {
		n += len(nodes[i].GPUs)
	}
	if n > cardsPerPage {
		return boardview.ViewGrid
	}
	return boardview.ViewCards
}

// paginate cuts d's nodes into pages (see above) and keeps those of d.Filter.Page, the last
// page when it asks past it. A board that fits one page has no Pages.
func paginate(d *boardview.BoardData) {
	per := cardsPerPage
	if d.Filter.View == boardview.ViewGrid {
		per = gridPerPage
	}
	var (
		pages  []boardview.BoardPage
		starts []int // index in d.Nodes of each page's first node
	)
	open := func(i int) {
		pages = append(pages, boardview.BoardPage{Number: len(pages) + 1, First: d.Nodes[i].Pool})
		starts = append(starts, i)
	}
	for i := 0; i < len(d.Nodes); {
		// The run of nodes of one pool from i (one node when sorted other than by pool).
		j, cards := i, 0
		for ; j < len(d.Nodes) && d.Nodes[j].Pool == d.Nodes[i].Pool; j++ {
			cards += len(d.Nodes[j].GPUs)
		}
		if len(pages) == 0 || (pages[len(pages)-1].Cards+cards > per && cards <= per) {
			open(i)
		}
		for ; i < j; i++ {
			p := &pages[len(pages)-1]
			if n := len(d.Nodes[i].GPUs); p.Cards > 0 && p.Cards+n > per {
				open(i)
				p = &pages[len(pages)-1]
			}
			p.Cards += len(d.Nodes[i].GPUs)
			p.Last = d.Nodes[i].Pool
		}
	}
	if len(pages) <= 1 {
		d.Filter.Page = 1
		return
	}
	n := min(d.Filter.Page, len(pages))
	end := len(d.Nodes)
	if n < len(pages) {
		end = starts[n]
	}
	d.Nodes, d.Pages, d.Filter.Page = d.Nodes[starts[n-1]:end], pages, n
}
