package board

import boardview "kashi/views/board"

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

// defaultView is the view a board of so many cards opens in when the URL names none: the
// cards up to a page of them, the compact grid above.
func defaultView(cards int) string {
	if cards > cardsPerPage {
		return boardview.ViewGrid
	}
	return boardview.ViewCards
}

// paginate cuts nodes into pages (see above) for d's view, sets d's Pages and page, and
// returns the nodes of d.Filter.Page, the last page when it asks past it. A board that fits
// one page has no Pages.
func paginate(d *boardview.BoardData, nodes []selNode) []selNode {
	per := cardsPerPage
	if d.Filter.View == boardview.ViewGrid {
		per = gridPerPage
	}
	var (
		pages  []boardview.BoardPage
		starts []int // index in nodes of each page's first node
	)
	open := func(i int) {
		pages = append(pages, boardview.BoardPage{Number: len(pages) + 1, First: nodes[i].node.Pool})
		starts = append(starts, i)
	}
	for i := 0; i < len(nodes); {
		// The run of nodes of one pool from i (one node when sorted other than by pool).
		j, cards := i, 0
		for ; j < len(nodes) && nodes[j].node.Pool == nodes[i].node.Pool; j++ {
			cards += len(nodes[j].marks)
		}
		if len(pages) == 0 || (pages[len(pages)-1].Cards+cards > per && cards <= per) {
			open(i)
		}
		for ; i < j; i++ {
			p := &pages[len(pages)-1]
			if n := len(nodes[i].marks); p.Cards > 0 && p.Cards+n > per {
				open(i)
				p = &pages[len(pages)-1]
			}
			p.Cards += len(nodes[i].marks)
			p.Last = nodes[i].node.Pool
		}
	}
	if len(pages) <= 1 {
		d.Filter.Page = 1
		return nodes
	}
	n := min(d.Filter.Page, len(pages))
	end := len(nodes)
	if n < len(pages) {
		end = starts[n]
	}
	d.Pages, d.Filter.Page = pages, n
	return nodes[starts[n-1]:end]
}
