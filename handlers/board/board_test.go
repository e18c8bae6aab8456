package board_test

import (
	"flag"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"kashi/web/webtest"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// boardFleet registers three nodes through the agent API, reports samples through it, and
// holds some cards with tasks placed through the store:
//
//	a100-01 (pool a100): 0 held by resnet-sweep, idle 2h (long idle); 1 held by resnet-sweep,
//	         idle 10m (not yet long); 2 free, idle 3h (free cards are never "long idle");
//	         3 free, never reported (stale)
//	a100-02 (pool a100): 0 held by llm-eval, saturated 50m; 1-3 free and quiet
//	h800-01 (pool h800): 0 held by asr-finetune, saturated 45m; 1 free, saturated 10m (not yet)
//
// Projects: vision (resnet-sweep, llm-eval), speech (asr-finetune and a queued task), nlp (none).
func boardFleet(s *webtest.Server) map[string]webtest.Registered {
	s.Tb.Helper()
	nodes := map[string]webtest.Registered{
		"a100-01": s.Register(webtest.Node("a100-01").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 4)),
		"a100-02": s.Register(webtest.Node("a100-02").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 4)),
		"h800-01": s.Register(webtest.Node("h800-01").InPool("h800").Cards(webtest.H800Name, webtest.H800MiB, 2)),
	}
	m := func(d time.Duration) time.Time { return webtest.T0.Add(-d) }
	s.PostSamples(nodes["a100-01"].Token,
		webtest.Sample("GPU-a100-01-0", m(2*time.Hour), 0, 2100),
		webtest.Sample("GPU-a100-01-0", m(time.Hour), 1, 2100),
		webtest.Sample("GPU-a100-01-0", m(time.Minute), 0, 2100),
		webtest.Sample("GPU-a100-01-1", m(time.Hour), 88, 61000),
		webtest.Sample("GPU-a100-01-1", m(10*time.Minute), 3, 61000),
		webtest.Sample("GPU-a100-01-1", m(time.Minute), 2, 61000),
		webtest.Sample("GPU-a100-01-2", m(3*time.Hour), 0, 0),
		webtest.Sample("GPU-a100-01-2", m(time.Minute), 0, 0),
	)
	s.PostSamples(nodes["a100-02"].Token,
		webtest.Sample("GPU-a100-02-0", m(50*time.Minute), 97, 80500),
		webtest.Sample("GPU-a100-02-0", m(time.Minute), 99, 80700),
		webtest.Sample("GPU-a100-02-1", m(time.Minute), 0, 0),
		webtest.Sample("GPU-a100-02-2", m(time.Minute), 0, 0),
		webtest.Sample("GPU-a100-02-3", m(time.Minute), 0, 0),
	)
	s.PostSamples(nodes["h800-01"].Token,
		webtest.Sample("GPU-h800-01-0", m(45*time.Minute), 100, 79000),
		webtest.Sample("GPU-h800-01-0", m(time.Minute), 100, 79100),
		webtest.Sample("GPU-h800-01-1", m(10*time.Minute), 99, 500),
		webtest.Sample("GPU-h800-01-1", m(time.Minute), 98, 500),
	)
	s.Projects("vision", "speech", "nlp")
	sweep := s.Create(webtest.Task("resnet-sweep").Of("vision").GPUs(2).Spec("A100-80G").Ready(), m(4*time.Hour))
	asr := s.Create(webtest.Task("asr-finetune").Of("speech").Spec("H800-80G").Ready(), m(3*time.Hour))
	eval := s.Create(webtest.Task("llm-eval").Of("vision").Spec("A100-80G").Ready(), m(2*time.Hour))
	s.Create(webtest.Task("asr-next").Of("speech").Spec("H800-80G").Ready(), m(time.Hour))
	s.Place(sweep, m(3*time.Hour), "GPU-a100-01-0", "GPU-a100-01-1")
	s.Place(asr, m(2*time.Hour), "GPU-h800-01-0")
	s.Place(eval, m(time.Hour), "GPU-a100-02-0")
	return nodes
}

func TestBoardCards(t *testing.T) {
	s := webtest.NewServer(t)
	boardFleet(s)
	w := s.Get("/")
	if w.Code != http.StatusOK {
		t.Fatalf("GET / = %d, want 200; body %s", w.Code, w.Body)
	}
	if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("GET / Content-Type = %q, want text/html", ct)
	}
	doc := webtest.Parse(t, w.Body.String())
	if got := doc.Find(`[data-testid="node-row"]`).Length(); got != 3 {
		t.Errorf("GET / node rows = %d, want 3", got)
	}
	if got := doc.Find(`[data-testid="gpu-card"]`).Length(); got != 10 {
		t.Errorf("GET / GPU cards = %d, want 10", got)
	}
	labels := map[string][]string{
		"long-idle": {"GPU-a100-01-0"},
		"saturated": {"GPU-a100-02-0", "GPU-h800-01-0"},
	}
	for label, want := range labels {
		sel := `[data-testid="gpu-card"]:has([data-testid="label-` + label + `"])`
		if diff := cmp.Diff(want, webtest.Attrs(doc, sel, "data-uuid")); diff != "" {
			t.Errorf("GET / cards labelled %s (-want +got):\n%s", label, diff)
		}
	}
	// Every card is in the node row of its host, and the stale card is shown as such.
	doc.Find(`[data-testid="node-row"]`).Each(func(_ int, row *goquery.Selection) {
		host := row.AttrOr("data-node", "")
		row.Find(`[data-testid="gpu-card"]`).Each(func(_ int, c *goquery.Selection) {
			if u := c.AttrOr("data-uuid", ""); !strings.HasPrefix(u, "GPU-"+host+"-") {
				t.Errorf("GET / card %s in the row of %s", u, host)
			}
		})
	})
	if got := webtest.Attrs(doc, `[data-testid="gpu-card"].stale`, "data-uuid"); !cmp.Equal(got, []string{"GPU-a100-01-3"}) {
		t.Errorf("GET / stale cards = %v, want [GPU-a100-01-3]", got)
	}
	pools := map[string]string{}
	doc.Find(`[data-testid="pool-summary"]`).Each(func(_ int, p *goquery.Selection) {
		var counts []string
		p.Find(".counts > div").Each(func(_ int, c *goquery.Selection) {
			counts = append(counts, c.Find("dt").Text()+" "+c.Find("dd").Text())
		})
		pools[p.AttrOr("data-pool", "")] = strings.Join(counts, ", ")
	})
	wantPools := map[string]string{
		// The silent free card is no data, not free: nobody can count on it.
		"a100": "Cards 8, Busy 1, Idle (held) 2, Free 4, No data 1",
		"h800": "Cards 2, Busy 1, Idle (held) 0, Free 1",
	}
	if diff := cmp.Diff(wantPools, pools); diff != "" {
		t.Errorf("GET / pool counts (-want +got):\n%s", diff)
	}
}

func TestBoardFilters(t *testing.T) {
	s := webtest.NewServer(t)
	boardFleet(s)
	tests := map[string]struct {
		query string
		nodes []string
		cards int
		empty bool
	}{
		"all":                {query: "", nodes: []string{"a100-01", "a100-02", "h800-01"}, cards: 10},
		"pool a100":          {query: "?pool=a100", nodes: []string{"a100-01", "a100-02"}, cards: 8},
		"pool h800":          {query: "?pool=h800", nodes: []string{"h800-01"}, cards: 2},
		"unknown pool":       {query: "?pool=nope", empty: true},
		"spec H800":          {query: "?spec=H800-80G", nodes: []string{"h800-01"}, cards: 2},
		"spec A100":          {query: "?spec=A100-80G", nodes: []string{"a100-01", "a100-02"}, cards: 8},
		"project vision":     {query: "?project=vision", nodes: []string{"a100-01", "a100-02"}, cards: 3},
		"project speech":     {query: "?project=speech", nodes: []string{"h800-01"}, cards: 1},
		"project, no cards":  {query: "?project=nlp", empty: true},
		"pool and project":   {query: "?pool=a100&project=vision", nodes: []string{"a100-01", "a100-02"}, cards: 3},
		"pool, other's spec": {query: "?pool=a100&spec=H800-80G", empty: true},
		"escaped value":      {query: "?project=%3Cscript%3E", empty: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			w := s.Get("/" + tc.query)
			if w.Code != http.StatusOK {
				t.Fatalf("GET /%s = %d, want 200", tc.query, w.Code)
			}
			doc := webtest.Parse(t, w.Body.String())
			if diff := cmp.Diff(tc.nodes, webtest.Attrs(doc, `[data-testid="node-row"]`, "data-node")); diff != "" {
				t.Errorf("GET /%s node rows (-want +got):\n%s", tc.query, diff)
			}
			if got := doc.Find(`[data-testid="gpu-card"]`).Length(); got != tc.cards {
				t.Errorf("GET /%s cards = %d, want %d", tc.query, got, tc.cards)
			}
			if got := doc.Find(`[data-testid="board-empty"]`).Length() == 1; got != tc.empty {
				t.Errorf("GET /%s shows the empty note = %v, want %v", tc.query, got, tc.empty)
			}
		})
	}
}

func TestBoardHTMX(t *testing.T) {
	s := webtest.NewServer(t)
	boardFleet(s)
	tests := map[string]struct {
		hdr      []string
		fullPage bool
	}{
		"full page":     {fullPage: true},
		"htmx":          {hdr: []string{"HX-Request", "true"}},
		"htmx, not set": {hdr: []string{"HX-Request", "false"}, fullPage: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			w := s.Get("/?pool=a100", tc.hdr...)
			if w.Code != http.StatusOK {
				t.Fatalf("GET / = %d, want 200", w.Code)
			}
			body := w.Body.String()
			if got := strings.Contains(body, "<html"); got != tc.fullPage {
				t.Errorf("GET / has <html> = %v, want %v", got, tc.fullPage)
			}
			doc := webtest.Parse(t, body)
			if got := doc.Find("#board-grid").Length(); got != 1 {
				t.Errorf("GET / #board-grid = %d, want 1", got)
			}
			if got := doc.Find(`[data-testid="board-filter"]`).Length() == 1; got != tc.fullPage {
				t.Errorf("GET / has the filter form = %v, want %v", got, tc.fullPage)
			}
			if got := doc.Find(`[data-testid="node-row"]`).Length(); got != 2 {
				t.Errorf("GET /?pool=a100 node rows = %d, want 2", got)
			}
			if !tc.fullPage && !strings.HasPrefix(strings.TrimSpace(body), `<div id="board-grid"`) {
				t.Errorf("GET / partial starts %.60q, want the grid's <div>", body)
			}
			if got := strings.Join(w.Header().Values("Vary"), ", "); !strings.Contains(got, "HX-Request") {
				t.Errorf("GET / Vary = %q, want it to name HX-Request", got)
			}
		})
	}
}

func TestBoardETag(t *testing.T) {
	s := webtest.NewServer(t)
	nodes := boardFleet(s)

	first := s.Get("/")
	etag := first.Header().Get("ETag")
	if first.Code != http.StatusOK || etag == "" {
		t.Fatalf("GET / = %d ETag %q, want 200 with an ETag", first.Code, etag)
	}
	same := s.Get("/", "If-None-Match", etag)
	if same.Code != http.StatusNotModified || same.Body.Len() != 0 {
		t.Errorf("GET / If-None-Match: first ETag = %d with %d bytes, want 304 and no body", same.Code, same.Body.Len())
	}
	if vary := same.Header().Get("Vary"); !strings.Contains(vary, "Accept-Encoding") {
		t.Errorf("GET / 304 Vary = %q, want Accept-Encoding among them (the board compresses itself)", vary)
	}
	if got := same.Header().Get("ETag"); got != etag {
		t.Errorf("GET / 304 ETag = %q, want %q", got, etag)
	}
	if htmx := s.Get("/", "HX-Request", "true", "If-None-Match", etag); htmx.Code != http.StatusOK {
		t.Errorf("GET / HX-Request with the page's ETag = %d, want 200 (the partial differs)", htmx.Code)
	}

	// A new reading changes what a card shows, so the board answers anew.
	s.PostSamples(nodes["a100-02"].Token, webtest.Sample("GPU-a100-02-1", webtest.T0, 64, 30000))
	changed := s.Get("/", "If-None-Match", etag)
	if changed.Code != http.StatusOK {
		t.Fatalf("GET / If-None-Match after a new sample = %d, want 200", changed.Code)
	}
	if got := changed.Header().Get("ETag"); got == "" || got == etag {
		t.Errorf("GET / ETag after a new sample = %q, want a new one (was %q)", got, etag)
	}
	// A repeated sample changes nothing, so the new ETag holds.
	s.PostSamples(nodes["a100-02"].Token, webtest.Sample("GPU-a100-02-1", webtest.T0, 64, 30000))
	if again := s.Get("/", "If-None-Match", changed.Header().Get("ETag")); again.Code != http.StatusNotModified {
		t.Errorf("GET / If-None-Match after a duplicate sample = %d, want 304", again.Code)
	}
}

func TestBoardLanguage(t *testing.T) {
	s := webtest.NewServer(t)
	boardFleet(s)
	tests := map[string]struct {
		hdr       []string
		lang      string
		title     string
		saturated string
	}{
		"default":             {lang: "en", title: "Occupancy board", saturated: "Saturated"},
		"zh-CN":               {hdr: []string{"Accept-Language", "zh-CN"}, lang: "zh-CN", title: "占用看板", saturated: "满载"},
		"zh, weighted":        {hdr: []string{"Accept-Language", "fr;q=0.9, zh;q=0.8, en;q=0.1"}, lang: "zh-CN", title: "占用看板", saturated: "满载"},
		"en over zh":          {hdr: []string{"Accept-Language", "en-US, zh-CN;q=0.5"}, lang: "en", title: "Occupancy board", saturated: "Saturated"},
		"unknown language":    {hdr: []string{"Accept-Language", "fr-FR"}, lang: "en", title: "Occupancy board", saturated: "Saturated"},
		"garbage header":      {hdr: []string{"Accept-Language", ";;;q=x"}, lang: "en", title: "Occupancy board", saturated: "Saturated"},
		"cookie beats header": {hdr: []string{"Accept-Language", "en", "Cookie", "kashi_lang=zh-CN"}, lang: "zh-CN", title: "占用看板", saturated: "满载"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			w := s.Get("/", tc.hdr...)
			if w.Code != http.StatusOK {
				t.Fatalf("GET / = %d, want 200", w.Code)
			}
			doc := webtest.Parse(t, w.Body.String())
			if got := doc.Find("html").AttrOr("lang", ""); got != tc.lang {
				t.Errorf("GET / lang = %q, want %q", got, tc.lang)
			}
			if got := strings.TrimSpace(doc.Find("main h1").First().Text()); got != tc.title {
				t.Errorf("GET / h1 = %q, want %q", got, tc.title)
			}
			if got := strings.TrimSpace(doc.Find(`[data-testid="label-saturated"]`).First().Text()); got != tc.saturated {
				t.Errorf("GET / saturated label = %q, want %q", got, tc.saturated)
			}
		})
	}
}

func TestLangSet(t *testing.T) {
	s := webtest.NewServer(t)
	tests := map[string]struct {
		path     string
		referer  string
		status   int
		location string
	}{
		"zh-CN":               {path: "/lang?set=zh-CN", status: http.StatusSeeOther, location: "/"},
		"en":                  {path: "/lang?set=en", status: http.StatusSeeOther, location: "/"},
		"back to the page":    {path: "/lang?set=zh-CN", referer: "http://example.com/?pool=a100", status: http.StatusSeeOther, location: "/?pool=a100"},
		"other site referer":  {path: "/lang?set=zh-CN", referer: "http://evil.test/phish", status: http.StatusSeeOther, location: "/"},
		"unknown language":    {path: "/lang?set=fr", status: http.StatusBadRequest},
		"case differs":        {path: "/lang?set=ZH-cn", status: http.StatusBadRequest},
		"missing":             {path: "/lang", status: http.StatusBadRequest},
		"script in the value": {path: "/lang?set=%3Cscript%3E", status: http.StatusBadRequest},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			w := s.Get(tc.path, "Referer", tc.referer)
			if w.Code != tc.status {
				t.Fatalf("GET %s = %d, want %d", tc.path, w.Code, tc.status)
			}
			cookies := (&http.Response{Header: w.Header()}).Cookies()
			if tc.status != http.StatusSeeOther {
				if len(cookies) != 0 {
					t.Errorf("GET %s set cookies %v, want none", tc.path, cookies)
				}
				if strings.Contains(w.Body.String(), "<script>") {
					t.Errorf("GET %s echoes the value unescaped: %s", tc.path, w.Body)
				}
				return
			}
			if got := w.Header().Get("Location"); got != tc.location {
				t.Errorf("GET %s Location = %q, want %q", tc.path, got, tc.location)
			}
			if len(cookies) != 1 {
				t.Fatalf("GET %s cookies = %v, want one", tc.path, cookies)
			}
			c := cookies[0]
			want := strings.TrimPrefix(tc.path, "/lang?set=")
			if c.Name != "kashi_lang" || c.Value != want || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" || c.MaxAge <= 0 {
				t.Errorf("GET %s cookie = %+v, want kashi_lang=%s HttpOnly SameSite=Lax Path=/ with a MaxAge", tc.path, c, want)
			}
		})
	}
}

// TestBoardGolden renders the whole board page through the router with fixed data and a fixed
// now, and compares it with testdata/golden/board-page.html.
func TestBoardGolden(t *testing.T) {
	s := webtest.NewServer(t)
	boardFleet(s)
	w := s.Get("/", "Accept-Language", "en")
	if w.Code != http.StatusOK {
		t.Fatalf("GET / = %d, want 200", w.Code)
	}
	got := w.Body.String()
	path := filepath.Join("..", "..", "testdata", "golden", "board-page.html")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden file (run go test ./handlers/board -update to create it): %v", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("GET / differs from %s (-want +got); run go test ./handlers/board -run TestBoardGolden -update if the change is meant:\n%s", path, diff)
	}
	// The same request renders the same bytes: nothing in the page depends on map order or time.
	if again := s.Get("/", "Accept-Language", "en").Body.String(); again != got {
		t.Errorf("GET / twice gave different pages:\n%s", cmp.Diff(got, again))
	}
}

// TestBoardStore runs the board over each database: the page is the same on SQLite and Postgres.
func TestBoardStore(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("..", "..", "testdata", "golden", "board-page.html"))
	if err != nil {
		t.Skipf("no golden file yet: %v", err)
	}
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		boardFleet(s)
		got := s.Get("/", "Accept-Language", "en").Body.String()
		if diff := cmp.Diff(string(want), got); diff != "" {
			t.Errorf("GET / (-golden +got):\n%s", diff)
		}
	})
}
