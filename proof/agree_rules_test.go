package proof

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/PuerkitoBio/goquery"
	"github.com/xuri/excelize/v2"

	"kashi/api"
	"kashi/billing"
)

// agree checks the rules of docs/invariants.md over one instant's figures.
func (in instant) agree(v violations) {
	in.gpuStatesAgree(v)
	in.cardsWithinAllocations(v)
	in.capacityAgrees(v)
	in.queueAgrees(v)
	in.budgetsAreBilled(v)
	in.quotaInUseAgrees(v)
	in.freeAgreesWithBooked(v)
	in.weeklyAgrees(v)
	in.servicesAgree(v)
	for _, b := range in.bills {
		billAddsUp(b, v)
		downloadsAgree(b, in.csv[b.Project], in.xlsx[b.Project], v)
	}
}

// gpuStatesAgree: the cards by pool, spec and state are the same on the API, the CLI,
// /metrics and the board's pool summaries.
func (in instant) gpuStatesAgree(v violations) {
	api, cli := stateCounts(in.gpus), stateCounts(in.cliGPUs)
	metrics := map[string]int{}
	for k, n := range in.metrics {
		if strings.HasPrefix(k, "kashi_gpus{") {
			metrics[k] = int(n)
		}
	}
	for _, k := range union(api, cli, metrics) {
		if api[k] != cli[k] || api[k] != metrics[k] {
			v.add("GPU states", "%s: API %d, CLI %d, /metrics %d", k, api[k], cli[k], metrics[k])
		}
	}
	byPool := map[string]map[string]int{}
	for _, g := range in.gpus {
		if byPool[g.Pool] == nil {
			byPool[g.Pool] = map[string]int{}
		}
		byPool[g.Pool]["total"]++
		byPool[g.Pool][string(g.State)]++
	}
	for pool, want := range byPool {
		got := in.board[pool]
		for _, class := range []string{"total", "busy", "idle", "free", "stale"} {
			if got[class] != want[class] {
				v.add("GPU states", "pool %s %s: board %d, API %d", pool, class, got[class], want[class])
			}
		}
	}
}

// stateCounts counts cards by the series kashi_gpus would write for them.
func stateCounts(gpus []api.GPU) map[string]int {
	out := map[string]int{}
	for _, g := range gpus {
		out[fmt.Sprintf(`kashi_gpus{pool=%q,spec=%q,state=%q}`, g.Pool, g.Spec, g.State)]++
	}
	return out
}

// cardsWithinAllocations: a task holds on the board at most the cards it was given, and a
// project at most what its running tasks were given.
func (in instant) cardsWithinAllocations(v violations) {
	given, byProject := map[int64]int{}, map[string]int{}
	for _, t := range in.holding {
		n := t.GPUs * max(t.Replicas, 1)
		given[t.ID] = n
		byProject[t.Project] += n
	}
	held, heldByProject := map[int64]int{}, map[string]int{}
	for _, g := range in.gpus {
		if g.TaskID != nil {
			held[*g.TaskID]++
			if g.Project != nil {
				heldByProject[*g.Project]++
			}
		}
	}
	for id, n := range held {
		if n > given[id] {
			v.add("cards within allocations", "task %d holds %d cards on the board, was given %d", id, n, given[id])
		}
	}
	for p, n := range heldByProject {
		if n > byProject[p] {
			v.add("cards within allocations", "project %s holds %d cards on the board, its running tasks were given %d", p, n, byProject[p])
		}
	}
}

// capacityAgrees: the queue's capacity panel counts, spec by spec, the cards the board shows
// (every card, a lost node's too), the cards tasks hold, and at most the free cards of live
// nodes.
func (in instant) capacityAgrees(v violations) {
	total, held, free := map[string]int{}, map[string]int{}, map[string]int{}
	for _, g := range in.gpus {
		total[g.Spec]++
		if g.TaskID != nil {
			held[g.Spec]++
		} else if g.State == api.GPUFree {
			free[g.Spec]++
		}
	}
	for _, c := range in.queue.Capacity {
		if c.Total != total[c.Spec] || c.Held != held[c.Spec] {
			v.add("capacity", "%s: the panel has %d cards, %d held; the board %d, %d held", c.Spec, c.Total, c.Held, total[c.Spec], held[c.Spec])
		}
		if c.Free > free[c.Spec] {
			v.add("capacity", "%s: the panel says %d free, the board shows %d free cards", c.Spec, c.Free, free[c.Spec])
		}
	}
}

// queueAgrees: /metrics counts the tasks the queue shows waiting.
func (in instant) queueAgrees(v violations) {
	if got, want := int(queuedOn(in.metrics)), len(in.queue.Tasks); got != want {
		v.add("queue", "kashi_queue_tasks %d over the lanes, the queue shows %d waiting", got, want)
	}
}

// budgetsAreBilled: the card-hours a quota says its project used this month are the
// card-hours the project's bill of the month holds, of the quota's spec (of every spec for a
// quota of all specs).
func (in instant) budgetsAreBilled(v violations) {
	billed := map[string]map[string]int64{}
	for _, b := range in.bills {
		billed[b.Project] = map[string]int64{}
		for _, l := range b.Lines {
			billed[b.Project][l.Spec] += l.NominalS
			billed[b.Project][""] += l.NominalS
		}
	}
	for _, p := range in.quotas {
		for _, q := range p.Quotas {
			h := float64(billed[p.Name][q.Spec]) / 3600
			if math.Abs(q.UsedCardHours-h) > 0.01 {
				v.add("budgets billed", "%s %q: the quota used %.3f card-hours this month, the bill holds %.3f", p.Name, q.Spec, q.UsedCardHours, h)
			}
		}
	}
}

// billAddsUp: every held second of a bill is classed once — the bill's, its lines' and its
// classes' card-seconds agree, each line's classes (rerun among them) adding up to its held
// seconds — its items add up to its total, and what its reruns cost is within its lines'.
func billAddsUp(b billing.Bill, v violations) {
	var nominal, effective, amounts int64
	for _, l := range b.Lines {
		nominal += l.NominalS
		effective += l.EffectiveS
		amounts += l.AmountFen
		if l.Breakdown.Nominal() != l.NominalS {
			v.add("bill adds up", "%s %s: task %d's classes add up to %d s, it held %d", b.Project, b.Month, l.TaskID, l.Breakdown.Nominal(), l.NominalS)
		}
	}
	if b.RerunFen < 0 || b.RerunFen > amounts || b.Held.Rerun == 0 && b.RerunFen != 0 {
		v.add("bill adds up", "%s %s: reruns of %d s cost %d fen of the lines' %d", b.Project, b.Month, b.Held.Rerun, b.RerunFen, amounts)
	}
	if b.Held.Nominal() != b.NominalS || nominal != b.NominalS || effective != b.EffectiveS || b.Held.Effective() != b.EffectiveS {
		v.add("bill adds up", "%s %s: held %d s (classes %d, lines %d), effective %d s (classes %d, lines %d)",
			b.Project, b.Month, b.NominalS, b.Held.Nominal(), nominal, b.EffectiveS, b.Held.Effective(), effective)
	}
	var items int64
	for _, it := range b.Items {
		items += it.AmountFen
	}
	if items != b.TotalFen {
		v.add("bill adds up", "%s %s: items add up to %d fen, the total is %d", b.Project, b.Month, items, b.TotalFen)
	}
}

// downloadsAgree: a bill's CSV and XLSX carry the API's total amount and card-hours.
func downloadsAgree(b billing.Bill, csvBody, xlsxBody []byte, v violations) {
	want := []string{yuanText(b.TotalFen), hoursText(b.NominalS), hoursText(b.EffectiveS)}
	rows, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(csvBody, []byte("\ufeff")))).ReadAll()
	if err != nil {
		v.add("downloads", "%s %s CSV: %v", b.Project, b.Month, err)
		return
	}
	if got, err := totalRow(rows); err != nil || !slices.Equal(got, want) {
		v.add("downloads", "%s %s CSV total %v (%v), API %v", b.Project, b.Month, got, err, want)
	}
	f, err := excelize.OpenReader(bytes.NewReader(xlsxBody))
	if err != nil {
		v.add("downloads", "%s %s XLSX: %v", b.Project, b.Month, err)
		return
	}
	defer f.Close()
	sheet := f.GetSheetName(0)
	xrows, err := f.GetRows(sheet, excelize.Options{RawCellValue: true})
	if err != nil {
		v.add("downloads", "%s %s XLSX: %v", b.Project, b.Month, err)
		return
	}
	got, err := totalRow(xrows)
	if err != nil {
		v.add("downloads", "%s %s XLSX: %v", b.Project, b.Month, err)
		return
	}
	for i := range got {
		// The workbook keeps numbers as numbers: compare their values.
		g, _ := strconv.ParseFloat(got[i], 64)
		w, _ := strconv.ParseFloat(want[i], 64)
		if math.Abs(g-w) > 5e-7 {
			v.add("downloads", "%s %s XLSX total %v, API %v", b.Project, b.Month, got, want)
			break
		}
	}
}

// totalRow finds the header row and the total row (合计) of a bill's table and returns the
// total's amount, nominal and effective card-hours as written.
func totalRow(rows [][]string) ([]string, error) {
	var header []string
	for _, r := range rows {
		if header == nil && slices.ContainsFunc(r, func(c string) bool { return strings.Contains(c, "Amount (CNY)") }) {
			header = r
			continue
		}
		if header != nil && slices.ContainsFunc(r, func(c string) bool { return strings.HasPrefix(c, "合计") }) {
			col := func(name string) string {
				i := slices.IndexFunc(header, func(c string) bool { return strings.Contains(c, name) })
				if i < 0 || i >= len(r) {
					return ""
				}
				return r[i]
			}
			return []string{col("Amount (CNY)"), col("Nominal card-hours"), col("Effective card-hours")}, nil
		}
	}
	return nil, fmt.Errorf("no total row (header found: %v)", header != nil)
}

func yuanText(fen int64) string { return fmt.Sprintf("%d.%02d", fen/100, fen%100) }
func hoursText(s int64) string  { return strconv.FormatFloat(float64(s)/3600, 'f', 6, 64) }

// issuedBills are the issued month's downloads as they read when issued.
type issuedBills struct {
	month   string
	reads   map[string][]byte // the downloads, by path
	pages   []string          // the pages that show the issued bills
	figures map[string]string // what they show, by path (pageFigures)
}

// issuePastMonth issues every project's bill of the month before the demo's clock, as
// finance does, and keeps how each reads (API, CSV, XLSX).
func (w *witness) issuePastMonth(ctx context.Context) (issuedBills, error) {
	var q api.Queue
	if err := w.getJSON(ctx, "admin", "/api/v1/queue", &q); err != nil {
		return issuedBills{}, err
	}
	month := q.Now.UTC().AddDate(0, -1, 0).Format("2006-01")
	is := issuedBills{month: month, reads: map[string][]byte{}}
	for _, p := range slices.Sorted(maps.Keys(w.projects)) {
		path := fmt.Sprintf("/api/v1/bills/%s/%s", p, month)
		// The demo's past may have issued it already (409): it is as frozen then.
		var se *statusError
		if err := w.post(ctx, "finance", path+"/issue", map[string]any{}, nil); err != nil && !(errors.As(err, &se) && se.status == http.StatusConflict) {
			return is, err
		}
		for _, f := range []string{"", "?format=csv", "?format=xlsx"} {
			b, err := w.get(ctx, "finance", path+f)
			if err != nil {
				return is, err
			}
			is.reads[path+f] = b
		}
		is.pages = append(is.pages, fmt.Sprintf("/bills/%s/%s", p, month))
	}
	is.pages = append(is.pages, "/bills?month="+month)
	is.figures = map[string]string{}
	for _, path := range is.pages {
		f, err := w.pageFigures(ctx, path)
		if err != nil {
			return is, err
		}
		is.figures[path] = f
	}
	return is, nil
}

// pageFigures is what a bills page shows of its bills: each group's tag and rows, each
// line, the totals and the checksum, as text.
func (w *witness) pageFigures(ctx context.Context, path string) (string, error) {
	body, err := w.get(ctx, "finance", path)
	if err != nil {
		return "", err
	}
	doc, err := goquery.NewDocumentFromReader(bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	var b strings.Builder
	doc.Find(`[data-testid=bill-group], [data-testid=bill-row], [data-testid=bills-total], [data-testid=bill-line], ` +
		`[data-testid=bill-total], [data-testid=bill-nominal], [data-testid=checksum]`).Each(func(_ int, s *goquery.Selection) {
		id, _ := s.Attr("data-testid")
		tag, _ := s.Attr("data-tag")
		if id == "bill-group" {
			fmt.Fprintf(&b, "group %q\n", tag)
			return
		}
		fmt.Fprintf(&b, "%s %s\n", id, strings.Join(strings.Fields(s.Text()), " "))
	})
	if b.Len() == 0 {
		return "", fmt.Errorf("%s shows no bill", path)
	}
	return b.String(), nil
}

// unchanged: an issued bill reads the same as when it was issued, whatever changed since.
func (is issuedBills) unchanged(ctx context.Context, w *witness, v violations) {
	for _, path := range is.pages {
		f, err := w.pageFigures(ctx, path)
		if err != nil {
			v.add("issued bills", "%s: %v", path, err)
		} else if f != is.figures[path] {
			v.add("issued bills", "%s reads differently after it was issued:\n%s\nwas:\n%s", path, f, is.figures[path])
		}
	}
	for _, path := range slices.Sorted(maps.Keys(is.reads)) {
		b, err := w.get(ctx, "finance", path)
		if err != nil {
			v.add("issued bills", "%s: %v", path, err)
			continue
		}
		if !bytes.Equal(b, is.reads[path]) {
			v.add("issued bills", "%s changed after it was issued (%d bytes, were %d)", path, len(b), len(is.reads[path]))
		}
	}
}

// union lists the keys of the maps, sorted.
func union(ms ...map[string]int) []string {
	keys := map[string]bool{}
	for _, m := range ms {
		for k := range m {
			keys[k] = true
		}
	}
	return slices.Sorted(maps.Keys(keys))
}
