package pools_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/web/webtest"
)

// TestArchivePage: the admins' archive page says where records go, then lists the uploads
// not arrived, a failing one first with its tries, next try and error, in both languages;
// with nothing waiting it says so. Only admins see it (TestAccessPolicy walks the route).
func TestArchivePage(t *testing.T) {
	cfg := webtest.TestCfg()
	cfg.Archive = "s3://kashi-archive/prod"
	s := webtest.NewServerOn(t, modelstest.SQLite(t, models.Options{}), cfg)
	ctx := context.Background()
	now := webtest.T0
	if _, err := s.Store.EnqueueArchive(ctx, []models.ArchiveUpload{
		{Kind: models.ArchiveBills, Key: "bills/2026/03/alpha-2026-03-b1.json", SourceID: 1, SourceAt: now, Body: []byte("{}")},
		{Kind: models.ArchiveTemplates, Key: "templates/2026/03/alpha-train-v1-1.json", SourceID: 1, SourceAt: now, Body: []byte("{}")},
	}, now); err != nil {
		t.Fatal(err)
	}
	due, err := s.Store.ArchiveDue(ctx, now, 10)
	if err != nil || len(due) != 2 {
		t.Fatalf("ArchiveDue = %v, %v", due, err)
	}
	if err := s.Store.ArchiveFailed(ctx, due[1].ID, "dial tcp: connection refused", now.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	kind := map[string]string{"en": "Template version", "zh-CN": "模板版本"}
	for lang, words := range map[string][]string{"en": {"1 waiting, 1 failing, 0 arrived."}, "zh-CN": {"等待 1 个，失败 1 个，已到达 0 个。", "失败次数"}} {
		w := s.Get("/archive", "Accept-Language", lang)
		if w.Code != http.StatusOK {
			t.Fatalf("GET /archive (%s) = %d", lang, w.Code)
		}
		doc := webtest.Parse(t, w.Body.String())
		if got := doc.Find(`[data-testid=archive-target]`).Text(); got != cfg.Archive {
			t.Errorf("%s: target %q, want %q", lang, got, cfg.Archive)
		}
		for _, word := range words {
			if !strings.Contains(doc.Text(), word) {
				t.Errorf("%s: the page does not say %q", lang, word)
			}
		}
		rows := doc.Find(`[data-testid=archive-row]`)
		if rows.Length() != 2 || rows.First().AttrOr("data-state", "") != "failing" ||
			!strings.Contains(rows.First().Find(`[data-testid=archive-kind]`).Text(), kind[lang]) ||
			rows.First().Find(`[data-testid=archive-why]`).Text() != "dial tcp: connection refused" {
			t.Errorf("%s: rows = %q; want the failing template first, with its error", lang, rows.Text())
		}
	}
	for _, u := range due {
		if err := s.Store.ArchiveArrived(ctx, u.ID, "", now); err != nil {
			t.Fatal(err)
		}
	}
	doc := webtest.Parse(t, s.Get("/archive", "Accept-Language", "en").Body.String())
	if doc.Find(`[data-testid=archive-none]`).Length() != 1 || !strings.Contains(doc.Text(), "0 waiting, 0 failing, 2 arrived.") {
		t.Errorf("after every upload arrived the page says %q", doc.Find(`main`).Text())
	}
}

// TestArchivePageWithoutAnArchive says how to configure one.
func TestArchivePageWithoutAnArchive(t *testing.T) {
	s := webtest.NewServer(t)
	doc := webtest.Parse(t, s.Get("/archive", "Accept-Language", "en").Body.String())
	if !strings.Contains(doc.Find(`[data-testid=archive-off]`).Text(), "--archive s3://bucket/prefix") {
		t.Errorf("without an archive the page says %q", doc.Find(`[data-testid=archive-where]`).Text())
	}
}
