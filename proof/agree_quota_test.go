package proof

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"

	"kashi/api"
)

// The people of the demo the agreement proof acts as, besides admin, finance and lead: a
// member of vision, and stream owners of recsys (li.na) and of speech (bob).
var agreeAskers = []string{"member", "li.na", "bob"}

// The proof's booking: recsys books bookedGPUs A100 cards from an hour after the proof's
// start to a day after its end, on a quota of A100 an admin gives it first (large enough to
// limit nothing: recsys ran without a quota). recsys runs few A100 tasks, so the booking
// keeps cards from the other projects at every reading.
const (
	bookedProject = "recsys"
	bookedSpec    = "A100-80G"
	bookedGPUs    = 16
	// probeProject is whose tasks the dry runs try: it has no booking and may overflow its
	// quota, so a dry run waits for cards, not for quota.
	probeProject = "speech"
)

// bookAndAsk makes what people ask for before the first reading: an admin gives recsys a
// quota of A100 and li.na books cards of it for recsys, which the admin approves; member
// asks for more vision A100 cards and bob for more speech card-hours, both left pending so
// that /approvals shows their context. The booking lasts until a day after the proof.
func (w *witness) bookAndAsk(ctx context.Context, days float64) error {
	var q api.Queue
	if err := w.getJSON(ctx, "admin", "/api/v1/queue", &q); err != nil {
		return err
	}
	now := q.Now.UTC()
	end := now.Add(time.Duration((days + 1) * float64(24*time.Hour))).Truncate(time.Minute)
	quota := map[string]any{"spec": bookedSpec, "max_gpus": 96, "budget_card_hours": 1_000_000,
		"starts_at": now.AddDate(0, -2, 0), "ends_at": now.AddDate(0, 3, 0)}
	if err := w.post(ctx, "admin", fmt.Sprintf("/api/v1/projects/%d/quotas", w.projects[bookedProject]), quota, nil); err != nil {
		return fmt.Errorf("recsys's quota: %w", err)
	}
	var req struct {
		ID int64 `json:"id"`
	}
	begins := now.Add(time.Hour)
	booking := map[string]any{"project": bookedProject, "spec": bookedSpec, "kind": "reservation", "reason": "the agreement proof's booking",
		"change": map[string]any{"reserve_gpus": bookedGPUs, "reserve_begins": begins, "reserve_ends": end}}
	if err := w.post(ctx, "li.na", "/api/v1/requests", booking, &req); err != nil {
		return fmt.Errorf("book: %w", err)
	}
	if err := w.post(ctx, "admin", fmt.Sprintf("/api/v1/requests/%d/approve", req.ID), map[string]string{"comment": "ok"}, nil); err != nil {
		return fmt.Errorf("approve the booking: %w", err)
	}
	asks := []struct {
		who  string
		body map[string]any
	}{
		{"member", map[string]any{"project": "vision", "spec": "A100-80G", "kind": "limit", "reason": "more training at once",
			"change": map[string]any{"max_gpus": 32}}},
		{"bob", map[string]any{"project": "speech", "spec": "", "kind": "budget", "reason": "the month runs long",
			"change": map[string]any{"add_card_hours": 200}}},
	}
	for _, a := range asks {
		if err := w.post(ctx, a.who, "/api/v1/requests", a.body, nil); err != nil {
			return fmt.Errorf("%s's request: %w", a.who, err)
		}
	}
	return nil
}

// quotaSeen is one place showing a project's cards in use against a concurrent limit.
type quotaSeen struct {
	where          string // the page or API, and what on it
	project, spec  string // spec "" for the limit of all specs
	inUse, limit   int
	asks, total    int // a waiting task's panel: what it asks, and in use + asks
	panel          bool
	parsedFromText string
}

// dryRun is a dry run of a task of probeProject and what it answered.
type dryRun struct {
	spec, region string
	gpus         int
	reason       api.WaitReason
	detail       string
}

// quotaReading is what the quota and free-capacity rules read besides the instant's API
// figures: the pages' counts of cards in use against limits, the queue page's and the
// board's booked cards, and dry runs for every place of the capacity panel.
type quotaReading struct {
	seen []quotaSeen
	// queuePage is the queue page's capacity panel: free and booked cards by spec and region.
	queuePage map[[2]string][2]int
	// boardBooked is the board's booked cards by pool; boardMarks the cards marked booked.
	boardBooked map[string]int
	boardMarks  int
	dry         []dryRun
}

// readQuotas reads the places that show quota in use and booked cards: /projects,
// /approvals (with /api/v1/requests to name each request's quota), the quota panel of each
// task the queue shows waiting on its project's limit, the queue page's capacity panel, the
// board's booked cards, and a dry run of the panel's largest free cards, and one more, for
// every place.
func (w *witness) readQuotas(ctx context.Context, in *instant) error {
	r := quotaReading{queuePage: map[[2]string][2]int{}, boardBooked: map[string]int{}}
	doc, err := w.doc(ctx, "admin", "/projects")
	if err != nil {
		return err
	}
	doc.Find(`[data-testid=project-card]`).Each(func(_ int, card *goquery.Selection) {
		project := card.AttrOr("data-project", "")
		card.Find(`[data-testid=quota-row]`).Each(func(_ int, row *goquery.Selection) {
			text := row.Find(`[data-testid=quota-in-use]`).Text()
			n := ints(text)
			s := quotaSeen{where: "/projects", project: project, spec: row.AttrOr("data-spec", ""), parsedFromText: oneLine(text)}
			if len(n) >= 2 {
				s.inUse, s.limit = n[0], n[1]
			}
			r.seen = append(r.seen, s)
		})
	})
	var requests []struct {
		ID      int64  `json:"id"`
		Project string `json:"project"`
		Spec    string `json:"spec"`
	}
	if err := w.getJSON(ctx, "admin", "/api/v1/requests?state=pending", &requests); err != nil {
		return err
	}
	if doc, err = w.doc(ctx, "admin", "/approvals"); err != nil {
		return err
	}
	doc.Find(`[data-testid=request-row]`).Each(func(_ int, row *goquery.Selection) {
		use := row.Find(`[data-testid=ctx-use-now]`)
		if use.Length() == 0 {
			return
		}
		id, _ := strconv.ParseInt(row.AttrOr("data-id", ""), 10, 64)
		i := slices.IndexFunc(requests, func(q struct {
			ID      int64  `json:"id"`
			Project string `json:"project"`
			Spec    string `json:"spec"`
		}) bool {
			return q.ID == id
		})
		if i < 0 {
			return
		}
		n := ints(use.Text())
		s := quotaSeen{where: fmt.Sprintf("/approvals request %d", id), project: requests[i].Project, spec: requests[i].Spec,
			parsedFromText: oneLine(use.Text())}
		if len(n) >= 2 {
			s.inUse, s.limit = n[0], n[1]
		}
		r.seen = append(r.seen, s)
	})
	for _, e := range in.queue.Tasks {
		if e.Quota == nil {
			continue
		}
		r.seen = append(r.seen, quotaSeen{where: fmt.Sprintf("GET /api/v1/queue task %d", e.ID), project: e.Project,
			spec: e.Quota.Spec, inUse: e.Quota.InUse, limit: e.Quota.Limit})
		doc, err := w.doc(ctx, "admin", fmt.Sprintf("/tasks/%d", e.ID))
		if err != nil {
			return err
		}
		panel := doc.Find(`[data-testid=task-quota]`)
		s := quotaSeen{where: fmt.Sprintf("/tasks/%d", e.ID), project: e.Project, panel: true, parsedFromText: oneLine(panel.Text())}
		if panel.Length() == 0 {
			s.inUse, s.limit = -1, -1 // the queue says it waits on the limit; its page shows no panel
			r.seen = append(r.seen, s)
			continue
		}
		if u, err := url.Parse(panel.Find(`[data-testid=task-quota-request]`).AttrOr("href", "")); err == nil {
			s.spec = u.Query().Get("spec")
		}
		if n := ints(panel.Text()); len(n) >= 4 {
			s.inUse, s.asks, s.total, s.limit = n[0], n[1], n[2], n[3]
		}
		r.seen = append(r.seen, s)
	}
	if doc, err = w.doc(ctx, "admin", "/queue"); err != nil {
		return err
	}
	doc.Find(`[data-testid=capacity-row]`).Each(func(_ int, row *goquery.Selection) {
		k := [2]string{row.AttrOr("data-spec", ""), row.AttrOr("data-region", "")}
		v := r.queuePage[k]
		if n := ints(row.Find(`[data-testid=capacity-free]`).Text()); len(n) > 0 {
			v[0] = n[0]
		}
		r.queuePage[k] = v
	})
	doc.Find(`[data-testid=capacity-booked]`).Each(func(_ int, row *goquery.Selection) {
		k := [2]string{row.AttrOr("data-spec", ""), row.AttrOr("data-region", "")}
		v := r.queuePage[k]
		v[1], _ = strconv.Atoi(row.AttrOr("data-booked", ""))
		r.queuePage[k] = v
	})
	if doc, err = w.doc(ctx, "admin", "/"); err != nil {
		return err
	}
	doc.Find(`[data-testid=pool-summary]`).Each(func(_ int, s *goquery.Selection) {
		if n := ints(s.Find(`[data-testid=pool-booked] dd`).Text()); len(n) > 0 {
			r.boardBooked[s.AttrOr("data-pool", "")] = n[0]
		}
	})
	r.boardMarks = doc.Find(`[data-testid=card-booked]`).Length()
	for _, c := range in.queue.Capacity {
		for _, g := range []int{c.LargestFree, c.LargestFree + 1} {
			if g < 1 {
				continue
			}
			d, err := w.dryRun(ctx, c.Spec, c.Region, g)
			if err != nil {
				return err
			}
			r.dry = append(r.dry, d)
		}
	}
	in.quotaReading = r
	return nil
}

// dryRun asks, as an admin, where a task of probeProject of gpus cards of spec (in region)
// would stand: urgent and short, so that it starts wherever the cards are free for it.
func (w *witness) dryRun(ctx context.Context, spec, region string, gpus int) (dryRun, error) {
	body := map[string]any{"project": probeProject, "name": "agree-probe", "gpus": gpus, "spec": spec, "queue": "long",
		"priority": "urgent", "est_gpu_hours": 0.1 * float64(gpus), "max_runtime_s": 600, "command": []string{"probe"}, "data_ready": true}
	if region != "" {
		body["regions"] = []string{region}
	}
	var out struct {
		Reason api.WaitReason `json:"reason"`
		Detail string         `json:"reason_detail"`
	}
	if err := w.post(ctx, "admin", "/api/v1/tasks?dry_run=1", body, &out); err != nil {
		return dryRun{}, err
	}
	return dryRun{spec: spec, region: region, gpus: gpus, reason: out.Reason, detail: out.Detail}, nil
}

// quotaInUseAgrees: a project's cards in use against each of its concurrent limits, and the
// limit, read the same on the API (in_use_gpus of limit_gpus), /projects, the approvals
// page's context, GET /api/v1/queue and the quota panel of each task waiting on the limit,
// and kashi_project_gpus_held; and no place counts more cards than the project's tasks hold
// on the board, of the limit's spec.
func (in instant) quotaInUseAgrees(v violations) {
	held := map[[2]string]int{}
	for _, g := range in.gpus {
		if g.TaskID != nil && g.Project != nil {
			held[[2]string{*g.Project, g.Spec}]++
			held[[2]string{*g.Project, ""}]++
		}
	}
	metric := map[[2]string]int{}
	for k, n := range in.metrics {
		if p, spec, ok := heldSeries(k); ok {
			metric[[2]string{p, spec}] += int(n)
			metric[[2]string{p, ""}] += int(n)
			if int(n) > held[[2]string{p, spec}] {
				v.add("quota in use", "%s: /metrics %d held, the board shows %d cards of its tasks", k, int(n), held[[2]string{p, spec}])
			}
		}
	}
	type quota struct{ inUse, limit int }
	byAPI := map[[2]string]quota{}
	for _, p := range in.quotas {
		for _, q := range p.Quotas {
			k := [2]string{p.Name, q.Spec}
			byAPI[k] = quota{q.InUseGPUs, q.LimitGPUs}
			if q.InUseGPUs > held[k] {
				v.add("quota in use", "%s %q: GET /api/v1/projects %d in use, the board shows %d cards of its tasks", p.Name, q.Spec, q.InUseGPUs, held[k])
			}
			if metric[k] != q.InUseGPUs {
				v.add("quota in use", "%s %q: GET /api/v1/projects %d in use, kashi_project_gpus_held %d", p.Name, q.Spec, q.InUseGPUs, metric[k])
			}
		}
	}
	for _, s := range in.quotaReading.seen {
		k := [2]string{s.project, s.spec}
		want, ok := byAPI[k]
		switch {
		case s.inUse < 0:
			v.add("quota in use", "%s: the queue says the task waits on %s's limit, its page shows no quota panel", s.where, s.project)
		case !ok:
			v.add("quota in use", "%s: %s %q %d of %d (%q); GET /api/v1/projects has no such quota", s.where, s.project, s.spec, s.inUse, s.limit, s.parsedFromText)
		case s.inUse != want.inUse || s.limit != want.limit:
			v.add("quota in use", "%s: %s %q %d in use of %d (%q); GET /api/v1/projects %d of %d", s.where, s.project, s.spec,
				s.inUse, s.limit, s.parsedFromText, want.inUse, want.limit)
		case s.panel && (s.inUse+s.asks != s.total || s.total <= s.limit):
			v.add("quota in use", "%s: the panel reads %q", s.where, s.parsedFromText)
		}
	}
}

// freeAgreesWithBooked: the queue's capacity panel (API and page) and the board count the
// same booked cards, spec by spec, and a dry run agrees with the panel: a task of a project
// without a booking of the panel's largest free cards is never kept out by a booking, and
// where the panel counts no booked card, no dry run is.
func (in instant) freeAgreesWithBooked(v violations) {
	r := in.quotaReading
	apiBooked, boardBooked := map[string]int{}, map[string]int{}
	largest, booked := map[[2]string]int{}, map[string]int{}
	total := 0
	for _, c := range in.queue.Capacity {
		k := [2]string{c.Spec, c.Region}
		if page, ok := r.queuePage[k]; !ok || page != [2]int{c.Free, c.Booked} {
			v.add("free and booked", "%s in %q: the queue page shows %d free, %d booked (shown: %v); the API %d free, %d booked",
				c.Spec, c.Region, page[0], page[1], ok, c.Free, c.Booked)
		}
		if c.Booked > 0 && len(c.BookedFor) == 0 {
			v.add("free and booked", "%s in %q: %d booked cards kept for no project", c.Spec, c.Region, c.Booked)
		}
		apiBooked[c.Spec] += c.Booked
		booked[c.Spec] += c.Booked
		largest[k] = c.LargestFree
		total += c.Booked
	}
	specOf := map[string]string{}
	for _, g := range in.gpus {
		specOf[g.Pool] = g.Spec
	}
	for pool, n := range r.boardBooked {
		boardBooked[specOf[pool]] += n
	}
	for _, spec := range union(apiBooked, boardBooked) {
		if apiBooked[spec] != boardBooked[spec] {
			v.add("free and booked", "%s: the board's pools count %d booked cards, the queue's panel %d", spec, boardBooked[spec], apiBooked[spec])
		}
	}
	if r.boardMarks != total {
		v.add("free and booked", "the board marks %d cards booked, the queue's panel counts %d", r.boardMarks, total)
	}
	for _, d := range r.dry {
		if d.reason != api.ReasonNoFreeGPUs || d.detail != "booked" {
			continue
		}
		if n := largest[[2]string{d.spec, d.region}]; d.gpus <= n {
			v.add("free and booked", "%s in %q: the panel shows %d free on one node; a dry run of %d answers booked by another project", d.spec, d.region, n, d.gpus)
		} else if booked[d.spec] == 0 {
			v.add("free and booked", "%s in %q: the panel counts no booked card; a dry run of %d answers booked by another project", d.spec, d.region, d.gpus)
		}
	}
}

// heldSeries reads a kashi_project_gpus_held series' project and spec.
func heldSeries(k string) (project, spec string, ok bool) {
	m := heldSeriesRE.FindStringSubmatch(k)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}

var heldSeriesRE = regexp.MustCompile(`^kashi_project_gpus_held\{project="([^"]*)",spec="([^"]*)"\}$`)

// ints are the whole numbers written in text, in order (thousands separators allowed).
func ints(text string) []int {
	var out []int
	for _, m := range intRE.FindAllString(text, -1) {
		if n, err := strconv.Atoi(strings.ReplaceAll(m, ",", "")); err == nil {
			out = append(out, n)
		}
	}
	return out
}

var intRE = regexp.MustCompile(`\d[\d,]*`)

// oneLine is text with its runs of white space made single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
