package pools

import (
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/labstack/echo/v4"

	"kashi/handlers"
	"kashi/notify"
	"kashi/pilot"
	poolsview "kashi/views/pools"
)

// KindPilotReview is the kind of the pilot review's messages to the leads.
const KindPilotReview = "pilot-review"

// reviewProjects are the ids of the projects whose tasks the review of in counts: its one
// project when narrowed, else every project with a task in the period.
func (h *Handler) reviewProjects(c echo.Context, in pilot.Input) ([]int64, []string, error) {
	var names []string
	for _, t := range in.Tasks {
		if in.Project == "" || t.Project == in.Project {
			names = append(names, t.Project)
		}
	}
	if in.Project != "" {
		names = append(names, in.Project)
	}
	names = slices.Compact(slices.Sorted(slices.Values(names)))
	ps, err := h.store.Projects(c.Request().Context())
	if err != nil {
		return nil, nil, err
	}
	var ids []int64
	for _, p := range ps {
		if slices.Contains(names, p.Name) {
			ids = append(ids, p.ID)
		}
	}
	return ids, names, nil
}

// canSendReview reports whether the caller may message the leads of the review's projects:
// messages are configured, and the caller is an admin or leads one of the projects.
func (h *Handler) canSendReview(c echo.Context, in pilot.Input) (bool, error) {
	if h.Cfg.Leads == nil {
		return false, nil
	}
	ids, _, err := h.reviewProjects(c, in)
	if err != nil {
		return false, err
	}
	who := handlers.Who(c)
	return len(ids) > 0 && (who.Admin() || slices.ContainsFunc(ids, who.Leads)), nil
}

// PoolReviewSend messages the review's verdicts to the leads of its projects, worded in the
// installation's language with a link to the review under the public URL: in-app and on the
// chat channels, once a day per review (a second click tells nobody again, and says so). An
// admin or a lead of one of the review's projects may send it; others are refused (403).
// With HX-Request the sending box comes back; otherwise the review's page, saying what was
// sent. POST /pools/:name/review/send?from=&to=&project=.
func (h *Handler) PoolReviewSend(c echo.Context) error {
	l, ctx := handlers.Locale(c), c.Request().Context()
	q, msg, err := h.readReview(c)
	if err != nil {
		return err
	}
	if msg != "" {
		return handlers.PageError(http.StatusUnprocessableEntity, msg)
	}
	in, r, err := h.review(c, q)
	if err != nil {
		return err
	}
	if ok, err := h.canSendReview(c, in); err != nil || !ok {
		if err != nil {
			return err
		}
		return handlers.PageError(http.StatusForbidden, l.T("review.err_send"))
	}
	ids, names, err := h.reviewProjects(c, in)
	if err != nil {
		return err
	}
	words, loc, now := h.Cfg.Words, h.Loc(), h.Now()
	path := "/pools/" + url.PathEscape(q.pool.Name) + "/review?" + reviewQueryString(q)
	link := strings.TrimSuffix(h.Cfg.PublicURL, "/") + path
	title, text := r.Message(words, loc, link)
	key := KindPilotReview + ":" + q.pool.Name + ":" + q.data.From + ":" + q.data.To + ":" + q.project + ":" + now.In(loc).Format(dateLayout)
	m := notify.Message{Kind: KindPilotReview, Project: strings.Join(names, ", "), Title: title, Text: text, At: now.In(loc),
		Link: link, LinkText: words.T("chat.link.review")}
	told, err := h.Cfg.Leads.TellLeads(ctx, ids, key, m)
	sent := poolsview.ReviewSend{Done: true, Told: told}
	if err != nil {
		if told == 0 {
			return err
		}
		slog.Warn("pilot review: a chat channel did not take the message", "pool", q.pool.Name, "err", err)
		sent.ChatFailed = true
	}
	if c.Request().Header.Get("HX-Request") == "true" {
		return handlers.Render(c, http.StatusOK, poolsview.ReviewSendBox(l, sent))
	}
	h.showReview(c, &q, r, true)
	q.data.Review.Send = &sent
	return handlers.Render(c, http.StatusOK, poolsview.Review(l, q.data))
}
