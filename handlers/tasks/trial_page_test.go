package tasks_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"kashi/api"
	"kashi/models"
	"kashi/web/webtest"
)

// trialWorld is a server with vision's task pretrain, A100 and RTX 4090 nodes of 4 cards each
// and prices; alice is a member of vision, bob of nlp.
func trialWorld(t *testing.T) (s *webtest.Server, base int64, alice, bob string, nodes map[string]webtest.Registered) {
	t.Helper()
	s = webtest.NewServer(t)
	s.Projects("vision", "nlp")
	alice, bob = s.Member("alice", "vision"), s.Member("bob", "nlp")
	nodes = map[string]webtest.Registered{
		"a": s.Register(webtest.Node("a").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 4)),
		"r": s.Register(webtest.Node("r").InPool("4090").Cards("NVIDIA GeForce RTX 4090", 24564, 4)),
	}
	for spec, rate := range map[string]int64{"A100-80G": 1500, "RTX4090-24G": 420} {
		if err := s.Store.SetPrice(t.Context(), models.Price{Spec: spec, FromMonth: "2026-01", RateFen: rate}, webtest.T0.Add(-6*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	tk := s.Create(webtest.Task("pretrain").Spec("A100-80G").Ready(), webtest.T0.Add(-5*time.Hour))
	return s, tk.ID, alice, bob, nodes
}

// endTrialRuns places each run on its spec's node two hours before T0 and ends it 20
// minutes later, stopped at its bound, having trained 400 (A100) or 180 (RTX) samples a
// second a card, 90 % of that per card on 2.
func endTrialRuns(t *testing.T, s *webtest.Server, nodes map[string]webtest.Registered, runs []models.TaskRow) {
	t.Helper()
	start := webtest.T0.Add(-2 * time.Hour)
	used := map[string]int{}
	for _, r := range runs {
		node := map[string]string{"A100-80G": "a", "RTX4090-24G": "r"}[r.Spec]
		var uuids []string
		for range r.GPUs {
			uuids = append(uuids, webtest.UUIDOf(node, used[node]))
			used[node]++
		}
		s.Place(r.Task, start, uuids...)
		rate := map[string]float64{"A100-80G": 400, "RTX4090-24G": 180}[r.Spec] * float64(r.GPUs) * map[int]float64{1: 1, 2: 0.9}[r.GPUs]
		end := start.Add(20 * time.Minute)
		rep := models.TaskReport{State: models.ReportExited, TS: end, ExitCode: 143, OutputUnits: int64(rate * 1200), OutputUnit: "samples"}
		if err := s.Store.ReportTaskStatus(t.Context(), nodes[node].ID, r.ID, rep, end); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTrialPages: a member opens the trial form from a task of hers, gets every problem of
// a bad submit named by its label (422, both languages), starts a trial (303 to its page);
// once its runs have ended with output, the trial page lists each spec and size with its
// throughput, scaling and cost per million units, and proposes the full run, whose button
// submits it and opens its task (a second is 409); each run's page links to the trial.
// Another project's member gets 404 on all of it.
func TestTrialPages(t *testing.T) {
	s, base, alice, bob, nodes := trialWorld(t)
	ctx := context.Background()
	id := strconv.FormatInt(base, 10)
	for lang, title := range map[string]string{"en": "Try pretrain at small sizes", "zh-CN": "小规模试跑 pretrain"} {
		hdr := append(webtest.Bearer(alice), "Cookie", "kashi_lang="+lang)
		doc := webtest.Parse(t, s.Get("/trials/new?from="+id, hdr...).Body.String())
		if got := strings.TrimSpace(doc.Find(`[data-testid=trial-form-title]`).Text()); got != title ||
			doc.Find(`input[name=specs][value=A100-80G][checked]`).Length() != 1 || doc.Find(`input[name=specs]`).Length() != 2 {
			t.Errorf("%s form: title %q, %d specs; want %q with A100-80G checked of 2", lang, got, doc.Find(`input[name=specs]`).Length(), title)
		}
		tdoc := webtest.Parse(t, s.Get("/tasks/"+id, hdr...).Body.String())
		if tdoc.Find(`[data-testid=task-try]`).AttrOr("href", "") != "/trials/new?from="+id {
			t.Errorf("%s task page has no Try at small sizes link", lang)
		}
		bad := url.Values{"from": {id}, "specs": {"A100-80G"}, "sizes": {"1, x"}, "bound_min": {"2"}}
		w := s.PostForm("/trials", alice, bad.Encode(), false)
		if lang == "zh-CN" {
			w = s.Do(webtest.Req{Method: http.MethodPost, Path: "/trials", Body: bad.Encode(), Hdr: map[string]string{
				"Authorization": "Bearer " + alice, "Content-Type": "application/x-www-form-urlencoded", "Cookie": "kashi_lang=zh-CN"}})
		}
		pdoc := webtest.Parse(t, w.Body.String())
		var fields []string
		pdoc.Find(`[data-testid=trial-problem]`).Each(func(_ int, p *goquery.Selection) { fields = append(fields, p.AttrOr("data-field", "")) })
		label := map[string]string{"en": "Sizes (cards per run)", "zh-CN": "规模（每次卡数）"}[lang]
		if w.Code != http.StatusUnprocessableEntity || strings.Join(fields, ",") != "sizes,bound_s" ||
			!strings.HasPrefix(pdoc.Find(`[data-testid=trial-problem]`).First().Text(), label) {
			t.Errorf("%s bad submit = %d, problems %v %q; want 422 naming sizes then bound_s by label", lang, w.Code, fields,
				pdoc.Find(`[data-testid=trial-problem]`).Text())
		}
	}
	if w := s.Get("/trials/new?from="+id, webtest.Bearer(bob)...); w.Code != http.StatusNotFound {
		t.Errorf("another project's member opens the form: %d, want 404", w.Code)
	}
	good := url.Values{"from": {id}, "specs": {"A100-80G", "RTX4090-24G"}, "sizes": {"1, 2"}, "bound_min": {"20"},
		"work_units": {"10000000"}, "full_gpus": {"4"}}
	w := s.PostForm("/trials", alice, good.Encode(), false)
	if w.Code != http.StatusSeeOther || !strings.HasPrefix(w.Header().Get("Location"), "/trials/") {
		t.Fatalf("POST /trials = %d %s; want 303 to the trial", w.Code, w.Body)
	}
	page := w.Header().Get("Location")
	trialID, _ := strconv.ParseInt(strings.TrimPrefix(page, "/trials/"), 10, 64)
	runs, err := s.Store.TrialRuns(ctx, trialID)
	if err != nil || len(runs) != 4 {
		t.Fatalf("TrialRuns = %d, %v", len(runs), err)
	}
	endTrialRuns(t, s, nodes, runs)
	for lang, want := range map[string]string{"en": "Run on 4 × RTX4090-24G", "zh-CN": "用 4 × RTX4090-24G 运行"} {
		hdr := append(webtest.Bearer(alice), "Cookie", "kashi_lang="+lang)
		doc := webtest.Parse(t, s.Get(page, hdr...).Body.String())
		rows := doc.Find(`[data-testid=trial-run]`)
		eff := doc.Find(`[data-testid=trial-run][data-spec=A100-80G][data-gpus="2"] [data-testid=trial-efficiency]`).Text()
		if rows.Length() != 4 || strings.TrimSpace(eff) != "90%" ||
			!strings.HasPrefix(doc.Find(`[data-testid=trial-proposal-text]`).Text(), want) || doc.Find(`[data-testid=trial-full]`).Length() != 1 {
			t.Errorf("%s trial page: %d runs, A100 2-card scaling %q, proposal %q; want 4 runs, 90%%, %q…", lang, rows.Length(), eff,
				doc.Find(`[data-testid=trial-proposal-text]`).Text(), want)
		}
		rdoc := webtest.Parse(t, s.Get("/tasks/"+strconv.FormatInt(runs[0].ID, 10), hdr...).Body.String())
		if rdoc.Find(`[data-testid=task-trial] a`).AttrOr("href", "") != page {
			t.Errorf("%s run's page does not link to its trial", lang)
		}
	}
	if w := s.Get(page, webtest.Bearer(bob)...); w.Code != http.StatusNotFound {
		t.Errorf("another project's member reads the trial: %d, want 404", w.Code)
	}
	if w := s.PostForm(page+"/full", bob, "", false); w.Code != http.StatusNotFound {
		t.Errorf("another project's member submits the full run: %d, want 404", w.Code)
	}
	w = s.PostForm(page+"/full", alice, "", false)
	if w.Code != http.StatusSeeOther || !strings.HasPrefix(w.Header().Get("Location"), "/tasks/") {
		t.Fatalf("POST full = %d %s; want 303 to the new task", w.Code, w.Body)
	}
	fullID, _ := strconv.ParseInt(strings.TrimPrefix(w.Header().Get("Location"), "/tasks/"), 10, 64)
	full := webtest.Decode[api.Task](t, s.Get("/api/v1/tasks/"+strconv.FormatInt(fullID, 10), webtest.Bearer(alice)...))
	if full.Spec != "RTX4090-24G" || full.GPUs != 4 || full.Owner != "alice" || full.EstGPUHours == 0 {
		t.Errorf("full run = %+v; want alice's 4 RTX4090-24G with an estimate", full)
	}
	if w := s.PostForm(page+"/full", alice, "", false); w.Code != http.StatusConflict {
		t.Errorf("second full run = %d; want 409", w.Code)
	}
	doc := webtest.Parse(t, s.Get(page, webtest.Bearer(alice)...).Body.String())
	if doc.Find(`[data-testid=trial-full-task]`).AttrOr("href", "") != "/tasks/"+strconv.FormatInt(fullID, 10) || doc.Find(`[data-testid=trial-full]`).Length() != 0 {
		t.Errorf("trial page after its full run: no link to task %d", fullID)
	}
}
