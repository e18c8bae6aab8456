package bills

import (
	"strconv"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	billsview "kashi/views/bills"
)

// billPageRows is how many rows of a bill's long tables (its lines, its idle time) a page
// shows; the bill's totals and summary are always the whole bill's, and the downloads hold
// every row.
const billPageRows = 100

// pageParam is the page of a long table the query parameter name asks for: 1 when absent, a
// whole number from 1 to 10,000 else 400 naming it.
func pageParam(c echo.Context, name string) (int, error) {
	v := c.QueryParam(name)
	if v == "" {
		return 1, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 10000 {
		return 0, handlers.BadRequest(name, name+" must be a whole number from 1 to 10000")
	}
	return n, nil
}

// pageOf is page n of rows, billPageRows a page (a page past the last is the last), and
// where it lies among them.
func pageOf[T any](rows []T, n int) ([]T, billsview.Page) {
	pages := max(1, (len(rows)+billPageRows-1)/billPageRows)
	n = min(n, pages)
	from := min((n-1)*billPageRows, len(rows))
	to := min(from+billPageRows, len(rows))
	return rows[from:to], billsview.Page{N: n, Pages: pages, Size: billPageRows, From: from + 1, To: to, Of: len(rows)}
}
