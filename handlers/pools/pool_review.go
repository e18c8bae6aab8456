package pools

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/models"
	"kashi/phrase"
	"kashi/pilot"
	poolsview "kashi/views/pools"
)

// dateLayout is how the review's form writes a day.
const dateLayout = "2006-01-02"

// reviewQuery is a review's pool, period and project as the page and the CSV read them.
type reviewQuery struct {
	pool     models.ConfiguredPool
	project  string
	from, to time.Time // [from, to): to is the day after the form's last day
	data     poolsview.ReviewData
}

// readReview reads the pool from the path and the period from ?from= and ?to= (days in the
// billing time zone, both included; the last two weeks by default) and ?project=, one whose
// bills the caller may read (a lead's own; any for finance and admins). A pool
// that does not exist is 404; a problem with the period or the project is returned as a
// message in the page's language.
func (h *Handler) readReview(c echo.Context) (reviewQuery, string, error) {
	ctx, l := c.Request().Context(), handlers.Locale(c)
	name := c.Param("name")
	pools, err := h.store.ConfiguredPools(ctx)
	if err != nil {
		return reviewQuery{}, "", err
	}
	i := slices.IndexFunc(pools, func(p models.ConfiguredPool) bool { return p.Name == name })
	if i < 0 {
		return reviewQuery{}, "", handlers.PageError(http.StatusNotFound, l.T("review.err_pool"))
	}
	loc, now := h.Loc(), h.Now().In(h.Loc())
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc)
	firstOfMonth := today.AddDate(0, 0, 1-today.Day())
	q := reviewQuery{pool: pools[i], project: c.QueryParam("project")}
	q.data = poolsview.ReviewData{Now: now, Pool: name, Spec: pools[i].Spec, Project: q.project,
		TwoWeeks:  [2]string{today.AddDate(0, 0, -pilot.DefaultDays+1).Format(dateLayout), today.Format(dateLayout)},
		LastMonth: [2]string{firstOfMonth.AddDate(0, -1, 0).Format(dateLayout), firstOfMonth.AddDate(0, 0, -1).Format(dateLayout)}}
	q.data.From, q.data.To = c.QueryParam("from"), c.QueryParam("to")
	if q.data.From == "" && q.data.To == "" {
		q.data.From, q.data.To = q.data.TwoWeeks[0], q.data.TwoWeeks[1]
	}
	projects, err := h.store.Projects(ctx)
	if err != nil {
		return reviewQuery{}, "", err
	}
	who := handlers.Who(c)
	for _, p := range projects {
		if who.SeesBills(p.ID) {
			q.data.Projects = append(q.data.Projects, p.Name)
		}
	}
	from, err1 := time.ParseInLocation(dateLayout, q.data.From, loc)
	last, err2 := time.ParseInLocation(dateLayout, q.data.To, loc)
	switch {
	case err1 != nil:
		return q, l.T("review.err_date", "from"), nil
	case err2 != nil:
		return q, l.T("review.err_date", "to"), nil
	case last.Before(from):
		return q, l.T("review.err_order"), nil
	case last.Sub(from) >= pilot.MaxDays*24*time.Hour:
		return q, l.T("review.err_long", pilot.MaxDays), nil
	case !from.Before(now):
		return q, l.T("review.err_future"), nil
	case q.project != "" && !slices.Contains(q.data.Projects, q.project):
		return q, l.T("review.err_project"), nil
	}
	q.from, q.to = from, last.AddDate(0, 0, 1)
	return q, "", nil
}

// review reads and computes q's review.
func (h *Handler) review(c echo.Context, q reviewQuery) (pilot.Input, pilot.Review, error) {
	in, err := pilot.Load(c.Request().Context(), h.store, q.pool.Name, q.project, q.from, q.to, h.Now())
	if err != nil {
		return pilot.Input{}, pilot.Review{}, err
	}
	r, err := pilot.Compute(in)
	return in, r, err
}

// PoolReview shows a pool's pilot review over ?from= to ?to=, of ?project= when given: a
// verdict per question, then the peaks, troughs, idle cards and the cost against a fixed
// fleet. A bad period or project shows the form again with why (422).
// GET /pools/:name/review.
func (h *Handler) PoolReview(c echo.Context) error {
	l := handlers.Locale(c)
	q, msg, err := h.readReview(c)
	if err != nil {
		return err
	}
	if msg != "" {
		q.data.Error = msg
		return handlers.Render(c, http.StatusUnprocessableEntity, poolsview.Review(l, q.data))
	}
	in, r, err := h.review(c, q)
	if err != nil {
		return err
	}
	can, err := h.canSendReview(c, in)
	if err != nil {
		return err
	}
	h.showReview(c, &q, r, can)
	return handlers.Render(c, http.StatusOK, poolsview.Review(l, q.data))
}

// reviewQueryString is q's period and project as the page's links carry them.
func reviewQueryString(q reviewQuery) string {
	return url.Values{"from": {q.data.From}, "to": {q.data.To}, "project": {q.project}}.Encode()
}

// showReview puts r in q's page, with its downloads and, when canSend, the button that
// messages the leads.
func (h *Handler) showReview(c echo.Context, q *reviewQuery, r pilot.Review, canSend bool) {
	v := reviewView(handlers.Locale(c), r)
	query := reviewQueryString(*q)
	v.CSV = "/pools/" + url.PathEscape(q.pool.Name) + "/review.csv?" + query
	v.XLSX = "/pools/" + url.PathEscape(q.pool.Name) + "/review.xlsx?" + query
	if canSend {
		v.Send = &poolsview.ReviewSend{URL: "/pools/" + url.PathEscape(q.pool.Name) + "/review/send?" + query}
	}
	q.data.Review = &v
}

// PoolReviewCSV downloads a pool's pilot review as CSV, with the page's query; a bad one is
// 422 naming it. GET /pools/:name/review.csv.
func (h *Handler) PoolReviewCSV(c echo.Context) error {
	return h.reviewDownload(c, "csv", "text/csv; charset=utf-8", func(w io.Writer, r pilot.Review) error {
		return pilot.WriteCSV(w, r, h.Loc())
	})
}

// PoolReviewXLSX downloads a pool's pilot review as a workbook, its sheet named in the
// caller's language, with the page's query; a bad one is 422 naming it.
// GET /pools/:name/review.xlsx.
func (h *Handler) PoolReviewXLSX(c echo.Context) error {
	sheet := handlers.Locale(c).T("review.xlsx_sheet")
	return h.reviewDownload(c, "xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", func(w io.Writer, r pilot.Review) error {
		return pilot.WriteXLSX(w, r, h.Loc(), sheet)
	})
}

// reviewDownload reads the review's query, computes it and sends it as write writes it, a
// file of extension ext and type mime.
func (h *Handler) reviewDownload(c echo.Context, ext, mime string, write func(io.Writer, pilot.Review) error) error {
	q, msg, err := h.readReview(c)
	if err != nil {
		return err
	}
	if msg != "" {
		return handlers.PageError(http.StatusUnprocessableEntity, msg)
	}
	_, r, err := h.review(c, q)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := write(&buf, r); err != nil {
		return err
	}
	c.Response().Header().Set(echo.HeaderContentDisposition,
		fmt.Sprintf(`attachment; filename="kashi-review-%s-%s-%s.%s"`, url.PathEscape(q.pool.Name), q.data.From, q.data.To, ext))
	return c.Blob(http.StatusOK, mime, buf.Bytes())
}

// reviewView is r as the page shows it, with each verdict in words.
func reviewView(l phrase.Locale, r pilot.Review) poolsview.ReviewView {
	v := poolsview.ReviewView{CatchS: r.CatchS, Tasks: r.Tasks, Waited: r.Waited, MeanWaitS: r.MeanWaitS, P95WaitS: r.P95WaitS,
		MaxWaitS: r.MaxWaitS, KeptS: r.KeptS, KeptMost: r.KeptMost, MinNodes: r.MinNodes, MaxNodes: r.MaxNodes,
		ProvisionedS: r.ProvisionedS, HeldS: r.HeldS, IdleS: r.IdleS, UnheldS: r.UnheldS, Reclaims: r.Reclaims, ReclaimedS: r.ReclaimedS,
		RateFen: r.Cost.RateFen, ElasticFen: r.Cost.ElasticFen, FixedFen: r.Cost.FixedFen, SavedFen: r.Cost.SavedFen,
		FixedNodes: r.Cost.FixedNodes, Replayed: r.Cost.ReplayedTasks, FixedMeanWaitS: r.Cost.FixedMeanWaitS,
		FixedP95WaitS: r.Cost.FixedP95WaitS, FixedMaxWaitS: r.Cost.FixedMaxWaitS}
	gpn := max(r.GPUsPerNode, 1)
	v.From, v.To = r.From, r.To
	v.Chart = poolsview.PoolView{Name: r.Pool, GPUsPerNode: gpn, MinNodes: r.MinNodes, MaxNodes: r.MaxNodes}
	for _, p := range r.Series {
		up := (p.UpGPUs + gpn - 1) / gpn
		v.Chart.Samples = append(v.Chart.Samples, poolsview.PoolSample{At: p.At, Size: up, Desired: up, DemandGPUs: p.DemandGPUs})
	}
	for _, vd := range r.Verdicts {
		v.Verdicts = append(v.Verdicts, poolsview.VerdictView{Question: vd.Question, OK: vd.OK, Text: vd.Sentence(l, r.Pool)})
	}
	for _, p := range r.Peaks {
		pv := poolsview.PeakView{From: p.From, To: p.To, ShortGPUs: p.ShortGPUs, Tasks: p.Tasks, Waited: p.Waited,
			MaxWaitS: p.MaxWaitS, Grew: p.Grew, AtMax: p.AtMax, Absorbed: p.Absorbed}
		for _, e := range p.Reasons {
			pv.Reasons = append(pv.Reasons, poolsview.ReasonView{At: e.At, From: e.FromSize, To: e.ToSize, Reason: e.Reason, Detail: l.SayText(e.Detail)})
		}
		v.Peaks = append(v.Peaks, pv)
	}
	for _, t := range r.Troughs {
		v.Troughs = append(v.Troughs, poolsview.SpanView{Node: t.Node, From: t.From, To: t.To})
	}
	for _, d := range r.Drains {
		v.Drains = append(v.Drains, poolsview.SpanView{Node: d.Node, From: d.From, To: d.To})
	}
	return v
}
