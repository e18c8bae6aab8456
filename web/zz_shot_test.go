package web_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"
)

func TestZZShots(t *testing.T) {
	if os.Getenv("KASHI_SHOTS") == "" {
		t.Skip()
	}
	w := newBillWorld(t)
	w.postAs("finance", "/api/v1/bills/nlp/2026-02/issue", "{}")
	vision, _ := w.store.ProjectByName(context.Background(), "vision")
	w.store.SetProjectTags(context.Background(), "tester", vision.ID, []string{"cv"}, t0)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		r.Header.Set("Authorization", "Bearer "+w.tokens["finance"])
		lang := "en"
		if l := r.URL.Query().Get("lang"); l != "" {
			lang = l
		}
		r.AddCookie(&http.Cookie{Name: "kashi_lang", Value: lang})
		w.e.ServeHTTP(rw, r)
	}))
	defer srv.Close()
	for name, path := range map[string]string{
		"bills":       "/bills?month=2026-02",
		"bill-vision": "/bills/vision/2026-02",
		"bill-nlp":    "/bills/nlp/2026-02",
		"reports":     "/reports?week=2026-W07",
		"reports-zh":  "/reports?week=2026-W07&lang=zh-CN",
		"bill-zh":     "/bills/vision/2026-02?lang=zh-CN",
	} {
		dir, _ := os.MkdirTemp("", "chr")
		out, err := exec.Command("chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
			"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir="+dir,
			"--screenshot=/tmp/kashi-bills-shots/"+name+".png", "--window-size=1400,1100", srv.URL+path).CombinedOutput()
		if err != nil {
			t.Errorf("%s: %v %s", name, err, out)
		}
	}
}
