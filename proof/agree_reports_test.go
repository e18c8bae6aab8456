package proof

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/PuerkitoBio/goquery"

	"kashi/billing"
	"kashi/phrase"
)

// weekFigures are a project's card-seconds in one week's report (its CSV's project row).
type weekFigures struct{ nominal, effective, idle int64 }

// weekSent is a weekly report's message as a project's people read it in-app.
type weekSent struct {
	project, week, text string
}

// serviceFigures are one inference service's card-seconds: held and idle.
type serviceFigures struct{ nominal, effective, idle int64 }

// reportsReading is what the weekly-report and services rules read at an instant: every
// week's report since the demo's past began, the bills of the same months, the weekly
// messages the lead was sent, and the services over 30 days on /models (API and page)
// beside the bills of the months those days fall in.
type reportsReading struct {
	loc *time.Location
	// weeks are the reports' project rows by week ("2026-W48") and project; weeksFrom and
	// weeksTo bound the weeks read, monthsFrom and monthsTo the months billed.
	weeks                  map[string]map[string]weekFigures
	weeksFrom, weeksTo     time.Time
	monthsFrom, monthsTo   time.Time
	monthHeld              map[string]int64 // the bills' held card-seconds by project, over the months
	sent                   []weekSent
	services               map[int64]serviceFigures // GET /api/v1/services?range=30d, by service id
	servicesPage           map[int64][2]string      // /models?range=30d: card-hours and idle hours as shown
	servicesBilled         map[int64]serviceFigures // the bills' Models, over the months of the 30 days
	servicesBilledFromTill [2]string                // the months read for them
}

// readReports reads, with the clock held, the weekly reports (as finance: /reports.csv of
// every week from the one the demo's past month begins in to the current one, read up to
// now) and the bills of every month from the past month to now; the lead's weekly messages;
// and the services' hours over 30 days on /models, its API and the bills of those days.
func (w *witness) readReports(ctx context.Context, in *instant, past string) error {
	var bs struct {
		TimeZone string `json:"time_zone"`
	}
	if err := w.getJSON(ctx, "finance", "/api/v1/billing/settings", &bs); err != nil {
		return err
	}
	loc, err := time.LoadLocation(bs.TimeZone)
	if err != nil {
		return err
	}
	r := reportsReading{loc: loc, weeks: map[string]map[string]weekFigures{}, monthHeld: map[string]int64{},
		services: map[int64]serviceFigures{}, servicesPage: map[int64][2]string{}, servicesBilled: map[int64]serviceFigures{}}
	first, err := time.ParseInLocation("2006-01", past, loc)
	if err != nil {
		return err
	}
	// Nothing was held before the past month (the demo's history begins there), so every
	// week from the one it begins in adds up to every month from it.
	bills := map[string][]billing.Bill{in.month: in.bills}
	for m := billing.MonthOf(first, loc); ; m = m.Next() {
		from, _ := m.Bounds(loc)
		if from.After(in.at) {
			break
		}
		r.monthsTo = from
		if _, ok := bills[m.String()]; !ok {
			var month struct {
				Bills []billing.Bill `json:"bills"`
			}
			if err := w.getJSON(ctx, "finance", "/api/v1/bills/"+m.String(), &month); err != nil {
				return err
			}
			bills[m.String()] = month.Bills
		}
		for _, b := range bills[m.String()] {
			r.monthHeld[b.Project] += b.NominalS
		}
	}
	r.monthsFrom = first
	r.weeksFrom, _ = billing.WeekOf(first, loc).Bounds(loc)
	for wk := billing.WeekOf(first, loc); ; wk = wk.Next() {
		from, to := wk.Bounds(loc)
		if from.After(in.at) {
			break
		}
		r.weeksTo = to
		// Every week is read again: an ended week's report changes when a node that held
		// cards at its end is later found lost, charged only until it was last seen.
		if r.weeks[wk.String()], err = w.weekRows(ctx, wk.String()); err != nil {
			return err
		}
	}
	var notes []struct {
		Kind    string `json:"kind"`
		Message string `json:"message"`
	}
	if err := w.getJSON(ctx, "lead", "/api/v1/notifications", &notes); err != nil {
		return err
	}
	for _, n := range notes {
		if n.Kind != "weekly-report" {
			continue
		}
		m := weeklyRE.FindStringSubmatch(n.Message)
		if m == nil {
			r.sent = append(r.sent, weekSent{text: n.Message})
			continue
		}
		r.sent = append(r.sent, weekSent{project: m[1], week: m[2], text: n.Message})
		if _, ok := r.weeks[m[2]]; !ok {
			if r.weeks[m[2]], err = w.weekRows(ctx, m[2]); err != nil {
				return err
			}
		}
	}
	if err := w.readServices(ctx, in, bills, &r); err != nil {
		return err
	}
	in.reports = r
	return nil
}

// weeklyRE reads a weekly message's project and week (weekly.chat.summary in English).
var weeklyRE = regexp.MustCompile(`^Project (\S+), week (\d{4}-W\d{2}) `)

// weekRows reads the project rows of a week's report from its CSV.
func (w *witness) weekRows(ctx context.Context, week string) (map[string]weekFigures, error) {
	body, err := w.get(ctx, "finance", "/reports.csv?week="+week)
	if err != nil {
		return nil, err
	}
	rows, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(body, []byte("\ufeff")))).ReadAll()
	if err != nil || len(rows) == 0 {
		return nil, fmt.Errorf("/reports.csv?week=%s: %v (%d rows)", week, err, len(rows))
	}
	col := func(name string) int { return slices.Index(rows[0], name) }
	kind, key := col("类型 Kind"), col("名称 Key")
	nominal, effective, idle := col("名义卡时 Nominal card-hours"), col("有效卡时 Effective card-hours"), col("闲置时长 Idle hours")
	if min(kind, key, nominal, effective, idle) < 0 {
		return nil, fmt.Errorf("/reports.csv?week=%s: header %q", week, rows[0])
	}
	out := map[string]weekFigures{}
	for _, r := range rows[1:] {
		if r[kind] == "项目 project" {
			out[r[key]] = weekFigures{seconds(r[nominal]), seconds(r[effective]), seconds(r[idle])}
		}
	}
	return out, nil
}

// seconds reads hours as the downloads write them (six decimals) back as seconds.
func seconds(hours string) int64 {
	h, _ := strconv.ParseFloat(hours, 64)
	return int64(math.Round(h * 3600))
}

// readServices reads the services over the 30 days to now, from /models' API and page as an
// admin, and their lines on the bills of every month those days fall in.
func (w *witness) readServices(ctx context.Context, in *instant, bills map[string][]billing.Bill, r *reportsReading) error {
	var services []struct {
		ID              int64 `json:"id"`
		CardSeconds     int64 `json:"card_seconds"`
		IdleCardSeconds int64 `json:"idle_card_seconds"`
	}
	if err := w.getJSON(ctx, "admin", "/api/v1/services?range=30d", &services); err != nil {
		return err
	}
	for _, s := range services {
		r.services[s.ID] = serviceFigures{s.CardSeconds, s.CardSeconds - s.IdleCardSeconds, s.IdleCardSeconds}
	}
	doc, err := w.doc(ctx, "admin", "/models?range=30d")
	if err != nil {
		return err
	}
	doc.Find(`[data-testid=service]`).Each(func(_ int, row *goquery.Selection) {
		id, _ := strconv.ParseInt(row.AttrOr("data-service", ""), 10, 64)
		r.servicesPage[id] = [2]string{strings.TrimSpace(row.Find(`[data-testid=service-card-hours]`).Text()),
			strings.TrimSpace(row.Find(`[data-testid=service-idle-hours]`).Text())}
	})
	first := billing.MonthOf(in.at.Add(-30*24*time.Hour), r.loc)
	r.servicesBilledFromTill[0] = first.String()
	for m := first; ; m = m.Next() {
		if from, _ := m.Bounds(r.loc); from.After(in.at) {
			break
		}
		r.servicesBilledFromTill[1] = m.String()
		if _, ok := bills[m.String()]; !ok {
			var month struct {
				Bills []billing.Bill `json:"bills"`
			}
			if err := w.getJSON(ctx, "finance", "/api/v1/bills/"+m.String(), &month); err != nil {
				return err
			}
			bills[m.String()] = month.Bills
		}
		for _, b := range bills[m.String()] {
			for _, s := range b.Models {
				f := r.servicesBilled[s.ServiceID]
				f.nominal += s.NominalS
				f.effective += s.EffectiveS
				f.idle += s.IdleS
				r.servicesBilled[s.ServiceID] = f
			}
		}
	}
	return nil
}

// weeklyAgrees: the weekly reports add up to the bills, project by project — every week's
// held card-hours from the week the demo's past month begins in to now are every month's
// from that month to now, both read up to now — and each weekly message a project's people
// were sent says what its week's report says of the project: held, effective and idle hours.
func (in instant) weeklyAgrees(v violations) {
	r := in.reports
	weekHeld := map[string]int64{}
	for _, rows := range r.weeks {
		for p, f := range rows {
			weekHeld[p] += f.nominal
		}
	}
	projects := map[string]bool{}
	for p := range weekHeld {
		projects[p] = true
	}
	for p := range r.monthHeld {
		projects[p] = true
	}
	for _, p := range slices.Sorted(maps.Keys(projects)) {
		if weekHeld[p] != r.monthHeld[p] {
			v.add("weekly report", "%s: the weekly reports %s – %s hold %s card-hours, the bills %s – %s %s",
				p, r.weeksFrom.In(r.loc).Format(time.DateOnly), r.weeksTo.In(r.loc).Format(time.DateOnly), phrase.Hours(weekHeld[p]),
				r.monthsFrom.In(r.loc).Format("2006-01"), r.monthsTo.In(r.loc).Format("2006-01"), phrase.Hours(r.monthHeld[p]))
		}
	}
	l := phrase.Locale{Lang: "en"}
	for _, s := range r.sent {
		if s.week == "" {
			v.add("weekly report", "a weekly message names no project and week: %.200q", s.text)
			continue
		}
		wk, err := billing.ParseWeek(s.week)
		if err != nil {
			v.add("weekly report", "a weekly message names week %q: %v", s.week, err)
			continue
		}
		from, to := wk.Bounds(r.loc)
		f := r.weeks[s.week][s.project]
		want := l.T("weekly.chat.summary", s.project, s.week, phrase.DayRange(from.In(r.loc), to.In(r.loc)), phrase.Hours(f.nominal),
			phrase.Hours(f.effective), l.Percent(phrase.Share(f.effective, f.nominal)), phrase.Hours(f.idle))
		if got, _, _ := strings.Cut(s.text, "\n"); got != want {
			v.add("weekly report", "%s %s: the message says %q, the week's report %q", s.project, s.week, got, want)
		}
	}
}

// servicesAgree: each inference service's card-hours, effective (serving) and idle hours
// over the 30 days to now are the same on /models (API and page) as on its lines of the
// bills of the months those days fall in. The demo's services run since the demo started,
// inside both spans.
func (in instant) servicesAgree(v violations) {
	r := in.reports
	ids := map[int64]bool{}
	for id := range r.services {
		ids[id] = true
	}
	for id := range r.servicesBilled {
		ids[id] = true
	}
	for _, id := range slices.Sorted(maps.Keys(ids)) {
		got, want := r.services[id], r.servicesBilled[id]
		if got != want {
			v.add("services' hours", "service %d: /models over 30 days %s card-hours, %s effective, %s idle; the bills of %s – %s %s, %s, %s",
				id, phrase.Hours(got.nominal), phrase.Hours(got.effective), phrase.Hours(got.idle), r.servicesBilledFromTill[0],
				r.servicesBilledFromTill[1], phrase.Hours(want.nominal), phrase.Hours(want.effective), phrase.Hours(want.idle))
		}
		if page, ok := r.servicesPage[id]; ok && page != [2]string{phrase.Hours(want.nominal), phrase.Hours(want.idle)} {
			v.add("services' hours", "service %d: the Models page shows %s card-hours, %s idle; the bills %s, %s",
				id, page[0], page[1], phrase.Hours(want.nominal), phrase.Hours(want.idle))
		}
	}
}
