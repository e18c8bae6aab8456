package browser_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kashi/web/webtest"
)

// TestBrowserBillsCharts opens the bills page of finance with three months of cost —
// February issued, March and April (this month) computed — at desktop size and on a
// 390×844 phone, in English and Chinese: the charts show, and the page does not scroll
// sideways on the phone.
func TestBrowserBillsCharts(t *testing.T) {
	t.Parallel()
	w := webtest.NewBillWorld(t)
	for _, p := range []string{"vision", "nlp"} {
		if r := w.PostAs("finance", "/api/v1/bills/"+p+"/"+webtest.BillMonth+"/issue", "{}"); r.Code != http.StatusCreated {
			t.Fatalf("issue %s = %d %s", p, r.Code, r.Body)
		}
	}
	mar := func(day int, h float64) time.Time { return webtest.Feb(day, h).AddDate(0, 1, 0) }
	w.Run(t, webtest.Task("pretrain-m3").Of("vision").GPUs(3).Ready(), mar(3, 0), 6*time.Hour, 0, map[int]int{0: 90, 1: 90, 2: 0}, 0, 1, 2)
	w.Run(t, webtest.Task("bert-m3").Of("nlp").Ready(), mar(5, 0), 4*time.Hour, 0, map[int]int{3: 70}, 3)
	w.Run(t, webtest.Task("bert-m4").Of("nlp").GPUs(2).Ready(), mar(5, 0).AddDate(0, 1, 0), 5*time.Hour, 0, map[int]int{0: 60, 1: 0}, 0, 1)
	now := time.Date(2026, 4, 20, 0, 0, 0, 0, time.UTC)
	if err := w.Store.RollUp(context.Background(), now, 365*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	w.SetNow(now)
	srv := httptest.NewServer(w.E)
	defer srv.Close()
	b := newBrowser(t, srv.URL, 90*time.Second)
	if err := chromedp.Do(b.ctx, b.login("finance", "pw-finance")); err != nil {
		t.Fatal(err)
	}
	for _, lang := range []string{"en", "zh-CN"} {
		for _, size := range []struct {
			name string
			w, h int64
		}{{"desktop", 1280, 900}, {"phone", 390, 844}} {
			err := chromedp.Do(b.ctx,
				chromedp.EmulateViewport(size.w, size.h),
				chromedp.Navigate(srv.URL+"/lang?set="+lang),
				chromedp.Navigate(srv.URL+"/bills"),
				chromedp.WaitVisible(css(`[data-testid=cost-chart]`)),
				chromedp.WaitVisible(css(`[data-testid=cost-compare]`)),
				b.shot("bills-charts-"+size.name+"-"+lang+".png"),
			)
			if err != nil {
				t.Fatalf("%s %s: %v (screenshots in %s)", size.name, lang, err, b.shots)
			}
			width, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`))
			if err != nil {
				t.Fatal(err)
			}
			if width > int(size.w) {
				out, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](widest))
				t.Errorf("%s %s: the page is %d px wide, want at most %d; past the edge: %s", size.name, lang, width, size.w, out)
			}
		}
	}
}
