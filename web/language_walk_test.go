package web_test

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"kashi/models"
	"kashi/views"
)

// TestLanguageWalk opens every page in English and in Chinese and fails on text of the other
// language or a catalog key shown as it is. English pages carry no Chinese but the brand and
// the switcher's 中文; Chinese pages carry no English sentence of the catalog.
func TestLanguageWalk(t *testing.T) {
	cfg := testCfg()
	cfg.Location = time.UTC
	s := newServerOn(t, newStore(t), cfg)
	s.projects("vision")
	n := s.register(node("n1").cards(a100Name, a100MiB, 2))
	ctx := context.Background()
	run := task("train").ready()
	run.nt.Owner = "tester"
	tk := s.create(run, t0.Add(-2*time.Hour))
	s.place(tk, t0.Add(-time.Hour), uuidOf("n1", 0))
	s.store.ReportTaskStatus(ctx, n.ID, tk.ID, models.TaskReport{State: models.ReportRunning, TS: t0}, t0)
	s.create(task("waits").gpus(2), t0)
	gone := s.create(task("gone").ready(), t0)
	s.store.CancelTask(ctx, gone.ID, "tester", t0)
	id := strconv.FormatInt(tk.ID, 10)
	pages := []string{"/", "/queue", "/tasks", "/tasks/" + id, "/tasks/" + strconv.FormatInt(gone.ID, 10), "/projects",
		"/approvals", "/audit", "/tokens", "/pools", "/alerts", "/notifications", "/bills",
		"/bills/vision/2026-03", "/reports", "/tasks/999999", "/calibrate", "/prices", "/people", "/account", "/pools/pool-1/edit",
		"/?view=grid", "/gpus/" + uuidOf("n1", 0), "/nodes/" + strconv.FormatInt(n.ID, 10)}
	s.store.RaiseAlert(ctx, models.AlertInput{Kind: models.AlertGPUMemory, Subject: "g0", TaskID: tk.ID, NodeID: n.ID,
		Code: "gpu_memory", Params: []string{id, "train", "vision", "n1", "0", "80000", "81920", "97", "95"}}, t0)

	keys := regexp.MustCompile(`\b[a-z_]+\.[a-z_.-]+[a-z]\b`)
	catalog, zh := views.Locale{Lang: views.LangEN}.Catalog(), views.Locale{Lang: views.LangZH}.Catalog()
	var english []string // catalog sentences: two words or more, not the same in Chinese
	for k, v := range catalog {
		if strings.Count(v, " ") >= 2 && !strings.Contains(v, "%") && zh[k] != v {
			english = append(english, v)
		}
	}
	for _, lang := range []string{views.LangEN, views.LangZH} {
		for _, path := range pages {
			w := s.get(path, "Cookie", "kashi_lang="+lang)
			if want := 200; w.Code != want && !strings.HasSuffix(path, "999999") {
				t.Errorf("%s %s = %d, want %d", lang, path, w.Code, want)
			}
			doc := parse(t, w.Body.String())
			doc.Find("script, style, code, pre, .brand, .langs, .host, [data-testid=task-name]").Remove()
			text := doc.Find("body").Text()
			for _, m := range keys.FindAllString(text, -1) {
				if _, ok := catalog[m]; ok {
					t.Errorf("%s %s (%d) shows the catalog key %q", lang, path, w.Code, m)
				}
			}
			if lang == views.LangEN {
				for _, r := range text {
					if unicode.Is(unicode.Han, r) {
						t.Errorf("%s %s shows Chinese: %q", lang, path, around(text, string(r)))
						break
					}
				}
				continue
			}
			if !strings.ContainsFunc(text, func(r rune) bool { return unicode.Is(unicode.Han, r) }) {
				t.Errorf("%s %s shows no Chinese", lang, path)
			}
			for _, e := range english {
				if strings.Contains(text, e) {
					t.Errorf("%s %s shows English: %q", lang, path, e)
				}
			}
		}
	}
}

// around is the text near the first s in text, for a failure message.
func around(text, s string) string {
	i := strings.Index(text, s)
	r := []rune(text[max(i-40, 0):min(i+40, len(text))])
	return strings.Join(strings.Fields(string(r)), " ")
}
