package tasks_test

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"kashi/api"
	"kashi/web/webtest"
)

// TestTrialsPage: /trials lists the trials of the projects the viewer sees (an admin's:
// every project's), newest first, with the same trials as GET /api/v1/trials for each
// viewer and filter; each row names its project, what it tries, its state and, once every
// run has ended, its proposal in one line, and links to the trial's page, in both
// languages. Another project's filter is 404 on both; a project without trials says so.
// The queue page links to the list and a trial's page back to it.
func TestTrialsPage(t *testing.T) {
	s, base, alice, bob, nodes := trialWorld(t)
	admin := s.UserToken("root", "admin")
	start := func(tok string, from int64, specs []string, sizes []int) int64 {
		t.Helper()
		body := webtest.MustJSON(t, api.TrialRequest{FromTask: from, Specs: specs, Sizes: sizes, BoundS: 1200, WorkUnits: 10_000_000, FullGPUs: 4})
		w := s.Post("/api/v1/trials", body, append(webtest.Bearer(tok), "Content-Type", "application/json")...)
		if w.Code != http.StatusCreated {
			t.Fatalf("POST /api/v1/trials = %d %s", w.Code, w.Body)
		}
		return webtest.Decode[api.Trial](t, w).ID
	}
	for lang, want := range map[string]string{"en": "No trials yet.", "zh-CN": "还没有试跑。"} {
		doc := webtest.Parse(t, s.Get("/trials", append(webtest.Bearer(alice), "Cookie", "kashi_lang="+lang)...).Body.String())
		if got := doc.Find(`[data-testid=trials-empty]`).Text(); !strings.Contains(got, want) {
			t.Errorf("%s /trials without trials says %q, want %q", lang, got, want)
		}
	}

	done := start(alice, base, []string{"A100-80G", "RTX4090-24G"}, []int{1, 2})
	runs, err := s.Store.TrialRuns(t.Context(), done)
	if err != nil {
		t.Fatal(err)
	}
	endTrialRuns(t, s, nodes, runs)
	running := start(alice, base, []string{"A100-80G"}, []int{1})
	nlpTask := s.Create(webtest.Task("bert").Of("nlp").Spec("A100-80G").Ready(), webtest.T0.Add(-time.Hour))
	other := start(bob, nlpTask.ID, []string{"A100-80G"}, []int{1})

	for name, c := range map[string]struct {
		tok, query string
		want       []int64
	}{
		"alice":         {alice, "", []int64{running, done}},
		"alice, vision": {alice, "?project=vision", []int64{running, done}},
		"bob":           {bob, "", []int64{other}},
		"admin":         {admin, "", []int64{other, running, done}},
		"admin, nlp":    {admin, "?project=nlp", []int64{other}},
	} {
		var api1 []int64
		for _, tr := range webtest.Decode[api.TrialList](t, s.Get("/api/v1/trials"+c.query, webtest.Bearer(c.tok)...)).Trials {
			api1 = append(api1, tr.ID)
		}
		var page []int64
		webtest.Parse(t, s.Get("/trials"+c.query, webtest.Bearer(c.tok)...).Body.String()).Find(`[data-testid=trial-row]`).
			Each(func(_ int, r *goquery.Selection) {
				id, _ := strconv.ParseInt(r.AttrOr("data-trial-id", ""), 10, 64)
				page = append(page, id)
			})
		if !slices.Equal(page, c.want) || !slices.Equal(api1, c.want) {
			t.Errorf("%s: /trials%s lists %v, the API %v; want %v", name, c.query, page, api1, c.want)
		}
	}
	for _, path := range []string{"/trials?project=nlp", "/api/v1/trials?project=nlp"} {
		if w := s.Get(path, webtest.Bearer(alice)...); w.Code != http.StatusNotFound {
			t.Errorf("vision's member asks %s: %d, want 404", path, w.Code)
		}
	}

	s.Projects("audio")
	for lang, want := range map[string]struct{ tried, done, running, proposal, empty, queue string }{
		"en": {"A100-80G, RTX4090-24G × 1, 2 cards", "Done", "Running: 0 of 1 runs ended", "4 × RTX4090-24G, about ",
			"No trials in project audio.", "Trials"},
		"zh-CN": {"A100-80G, RTX4090-24G × 1, 2 卡", "已完成", "进行中：0/1 次已结束", "4 × RTX4090-24G，每小时约 ",
			"项目 audio 还没有试跑。", "小规模试跑"},
	} {
		hdr := append(webtest.Bearer(alice), "Cookie", "kashi_lang="+lang)
		doc := webtest.Parse(t, s.Get("/trials", hdr...).Body.String())
		row := func(id int64) *goquery.Selection {
			return doc.Find(`[data-testid=trial-row][data-trial-id="` + strconv.FormatInt(id, 10) + `"]`)
		}
		text := func(sel *goquery.Selection) string { return strings.Join(strings.Fields(sel.Text()), " ") }
		d, r := row(done), row(running)
		if text(d.Find(`td`).Eq(1)) != "vision" || text(d.Find(`td`).Eq(2)) != want.tried ||
			text(d.Find(`[data-testid=trial-state]`)) != want.done || text(r.Find(`[data-testid=trial-state]`)) != want.running ||
			!strings.HasPrefix(text(d.Find(`[data-testid=trial-proposal-line]`)), want.proposal) ||
			text(r.Find(`[data-testid=trial-proposal-line]`)) != "—" ||
			d.Find(`[data-testid=trial-link]`).AttrOr("href", "") != "/trials/"+strconv.FormatInt(done, 10) {
			t.Errorf("%s: done trial's row %q, running trial's %q; want vision, %q, %q with its proposal %q…, and %q",
				lang, text(d), text(r), want.tried, want.done, want.proposal, want.running)
		}
		edoc := webtest.Parse(t, s.Get("/trials?project=audio", append(webtest.Bearer(admin), "Cookie", "kashi_lang="+lang)...).Body.String())
		if got := text(edoc.Find(`[data-testid=trials-empty]`)); got != want.empty {
			t.Errorf("%s /trials?project=audio says %q, want %q", lang, got, want.empty)
		}
		q := webtest.Parse(t, s.Get("/queue", hdr...).Body.String()).Find(`[data-testid=trials-link]`)
		if q.AttrOr("href", "") != "/trials" || text(q) != want.queue {
			t.Errorf("%s queue page's link to the trials: %q %q, want /trials %q", lang, q.AttrOr("href", ""), text(q), want.queue)
		}
		back := webtest.Parse(t, s.Get("/trials/"+strconv.FormatInt(done, 10), hdr...).Body.String()).Find(`[data-testid=trials-back]`)
		if back.AttrOr("href", "") != "/trials" {
			t.Errorf("%s trial page does not link back to /trials", lang)
		}
	}
}
