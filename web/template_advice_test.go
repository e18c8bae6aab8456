package web_test

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"kashi/models"
)

// TestTemplateAdvice: a template's page advises its next run from its latest runs merged:
// each of two runs used one of its two A100 cards, one peaking at 12 GiB and one at 20 GiB,
// so the advice is one card that holds 20 GiB with headroom — an A100 still, since the
// 4090's 24 GiB would not hold 24 GiB; the first run alone would have fitted a 4090.
func TestTemplateAdvice(t *testing.T) {
	s, tpl, member, run := adviceWorld(t)
	page := func() string {
		w := s.get("/templates/"+strconv.FormatInt(tpl.ID, 10), bearer(member)...)
		return strings.Join(strings.Fields(parse(t, w.Body.String()).Find(`[data-testid=template-advice]`).Text()), " ")
	}
	run(t0.Add(-5*time.Hour), 0, 12)
	s.setNow(t0.Add(-3*time.Hour - 30*time.Minute))
	if got := page(); !strings.Contains(got, "Next time ask for 1 × RTX4090-24G") || !strings.Contains(got, "Runs read: 1,") {
		t.Errorf("after one run the template advises %q, want 1 × RTX4090-24G", got)
	}
	run(t0.Add(-3*time.Hour), 1, 20)
	s.setNow(t0)
	if got := page(); !strings.Contains(got, "Next time ask for 1 × A100-80G, at 50 % of the cost") || !strings.Contains(got, "Runs read: 2,") {
		t.Errorf("after two runs the template advises %q, want 1 × A100-80G from both", got)
	}

	// The advice's link opens the submit form from the template with one A100.
	doc := parse(t, s.get("/templates/"+strconv.FormatInt(tpl.ID, 10), bearer(member)...).Body.String())
	link := doc.Find(`[data-testid=submit-advised]`).AttrOr("href", "")
	form := parse(t, s.get(strings.TrimSuffix(link, "#task-form"), bearer(member)...).Body.String())
	if gpus, spec := form.Find(`[name=gpus]`).AttrOr("value", ""), form.Find(`[name=specs][checked]`).AttrOr("value", ""); gpus != "1" || spec != "A100-80G" {
		t.Errorf("submit as advised (%s) fills %q × %q, want 1 × A100-80G", link, gpus, spec)
	}
	if w := s.get("/queue?template="+strconv.FormatInt(tpl.ID, 10)+"&gpus=0", bearer(member)...); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "gpus") {
		t.Errorf("submit as advised with 0 cards = %d, want 400 naming gpus", w.Code)
	}

	// The week's report lists both runs, the bigger saving first: the first run's one 4090
	// instead of two A100s (¥25.80 an hour), then the second's one A100 (¥15).
	s.setNow(t0.Add(7 * 24 * time.Hour))
	doc = parse(t, s.get("/reports?week=2026-W10").Body.String())
	var next, saving []string
	doc.Find(`[data-testid=advice-row]`).Each(func(_ int, row *goquery.Selection) {
		next = append(next, row.Find(`[data-testid=advice-next]`).Text())
		saving = append(saving, row.Find(`.money`).Text())
	})
	if want := []string{"1 × RTX4090-24G", "1 × A100-80G"}; !slices.Equal(next, want) || saving[0] != "¥25.80" || saving[1] != "¥15.00" {
		t.Errorf("the report's advice = %v saving %v, want %v saving ¥25.80 and ¥15.00", next, saving, want)
	}
	w := s.get("/reports.csv?week=2026-W10")
	if !strings.Contains(w.Body.String(), "建议 advice,eval: 1 × RTX4090-24G instead of 2 × A100-80G,vision,alice,A100-80G,") {
		t.Errorf("the report's CSV lacks the advice row:\n%s", w.Body)
	}
}

// adviceWorld is a server with vision's template "eval" (2 × A100-80G), A100 and 4090 nodes
// and prices, and run, which runs the template once from start for an hour on n1's two
// cards, card busy in use at peakGiB, the other idle, then rolls the readings up.
func adviceWorld(t *testing.T) (s *server, tpl models.TaskTemplate, member string, run func(start time.Time, busy int, peakGiB int64)) {
	t.Helper()
	s = newServer(t)
	s.projects("vision")
	member = s.member("alice", "vision")
	ctx := t.Context()
	s.setNow(t0.Add(-6 * time.Hour))
	n1 := s.register(node("n1").inPool("a100").cards(a100Name, a100MiB, 2))
	s.register(node("n2").inPool("4090").cards("NVIDIA GeForce RTX 4090", 24564, 2))
	for spec, rate := range map[string]int64{"A100-80G": 1500, "RTX4090-24G": 420} {
		if err := s.store.SetPrice(ctx, models.Price{Spec: spec, FromMonth: "2026-01", RateFen: rate}, t0.Add(-6*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	vision, _ := s.store.ProjectByName(ctx, "vision")
	tpl, err := s.store.CreateTemplate(ctx, models.NewTemplate{ProjectID: vision.ID, Name: "eval", Body: models.TemplateBody{
		GPUs: 2, Spec: "A100-80G", Queue: models.QueueLong, Priority: models.PriorityNormal, Command: []string{"eval"}}},
		"tester", models.DefaultTaskLimits, t0.Add(-6*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	run = func(start time.Time, busy int, peakGiB int64) {
		b := task("eval").gpus(2).spec("A100-80G").ready()
		b.nt.TemplateID, b.nt.TemplateVersion = tpl.ID, tpl.Version
		tk := s.create(b, start.Add(-time.Minute))
		s.place(tk, start, uuidOf("n1", 0), uuidOf("n1", 1))
		for m := time.Duration(0); m < time.Hour; m += time.Minute {
			s.setNow(start.Add(m))
			mem := [2]int64{500, 500}
			util := [2]int{0, 0}
			mem[busy], util[busy] = peakGiB*1024, 60
			s.postSamples(n1.Token, sample(uuidOf("n1", 0), start.Add(m), util[0], mem[0]), sample(uuidOf("n1", 1), start.Add(m), util[1], mem[1]))
		}
		end := start.Add(time.Hour)
		if err := s.store.ReportTaskStatus(ctx, n1.ID, tk.ID, models.TaskReport{State: models.ReportExited, TS: end}, end); err != nil {
			t.Fatal(err)
		}
		if err := s.store.RollUp(ctx, end.Add(time.Hour), 24*time.Hour); err != nil {
			t.Fatal(err)
		}
	}
	return s, tpl, member, run
}
