package tasks_test

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"kashi/web/webtest"
)

// TestTemplateAdvice: a template's page advises its next run from its latest runs merged:
// each of two runs used one of its two A100 cards, one peaking at 12 GiB and one at 20 GiB,
// so the advice is one card that holds 20 GiB with headroom — an A100 still, since the
// 4090's 24 GiB would not hold 24 GiB; the first run alone would have fitted a 4090.
func TestTemplateAdvice(t *testing.T) {
	s, tpl, member, run := webtest.AdviceWorld(t)
	page := func() string {
		w := s.Get("/templates/"+strconv.FormatInt(tpl.ID, 10), webtest.Bearer(member)...)
		return strings.Join(strings.Fields(webtest.Parse(t, w.Body.String()).Find(`[data-testid=template-advice]`).Text()), " ")
	}
	run(webtest.T0.Add(-5*time.Hour), 0, 12)
	s.SetNow(webtest.T0.Add(-3*time.Hour - 30*time.Minute))
	if got := page(); !strings.Contains(got, "Next time ask for 1 × RTX4090-24G") || !strings.Contains(got, "Runs read: 1,") {
		t.Errorf("after one run the template advises %q, want 1 × RTX4090-24G", got)
	}
	run(webtest.T0.Add(-3*time.Hour), 1, 20)
	s.SetNow(webtest.T0)
	if got := page(); !strings.Contains(got, "Next time ask for 1 × A100-80G, at 50 % of the cost") || !strings.Contains(got, "Runs read: 2,") {
		t.Errorf("after two runs the template advises %q, want 1 × A100-80G from both", got)
	}

	// The advice's link opens the submit form from the template with one A100.
	doc := webtest.Parse(t, s.Get("/templates/"+strconv.FormatInt(tpl.ID, 10), webtest.Bearer(member)...).Body.String())
	link := doc.Find(`[data-testid=submit-advised]`).AttrOr("href", "")
	form := webtest.Parse(t, s.Get(strings.TrimSuffix(link, "#task-form"), webtest.Bearer(member)...).Body.String())
	if gpus, spec := form.Find(`[name=gpus]`).AttrOr("value", ""), form.Find(`[name=specs][checked]`).AttrOr("value", ""); gpus != "1" || spec != "A100-80G" {
		t.Errorf("submit as advised (%s) fills %q × %q, want 1 × A100-80G", link, gpus, spec)
	}
	if w := s.Get("/queue?template="+strconv.FormatInt(tpl.ID, 10)+"&gpus=0", webtest.Bearer(member)...); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "gpus") {
		t.Errorf("submit as advised with 0 cards = %d, want 400 naming gpus", w.Code)
	}

	// The week's report lists both runs, the bigger saving first: the first run's one 4090
	// instead of two A100s (¥25.80 an hour), then the second's one A100 (¥15).
	s.SetNow(webtest.T0.Add(7 * 24 * time.Hour))
	doc = webtest.Parse(t, s.Get("/reports?week=2026-W10").Body.String())
	var next, saving []string
	doc.Find(`[data-testid=advice-row]`).Each(func(_ int, row *goquery.Selection) {
		next = append(next, row.Find(`[data-testid=advice-next]`).Text())
		saving = append(saving, row.Find(`.money`).Text())
	})
	if want := []string{"1 × RTX4090-24G", "1 × A100-80G"}; !slices.Equal(next, want) || saving[0] != "¥25.80" || saving[1] != "¥15.00" {
		t.Errorf("the report's advice = %v saving %v, want %v saving ¥25.80 and ¥15.00", next, saving, want)
	}
	w := s.Get("/reports.csv?week=2026-W10")
	if !strings.Contains(w.Body.String(), "建议 advice,eval: 1 × RTX4090-24G instead of 2 × A100-80G,vision,alice,A100-80G,") {
		t.Errorf("the report's CSV lacks the advice row:\n%s", w.Body)
	}
}
