package bills_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"kashi/billing"
	"kashi/models"
	"kashi/web/webtest"
)

// TestPriceChangePage: the A100 list price doubles from February. The price list links the
// row to its page and loads what it changed; the page shows February against January as the
// bills show them, and February billed at January's rate against the new one, the page's
// poll its body only, in both languages. Finance and admins open it (they read the prices);
// members, leads and viewers get 403. A spec's first price, an unknown row and a bad id are
// no change (404). On SQLite and Postgres.
func TestPriceChangePage(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		w := webtest.NewBillWorldOn(t, s, true)
		ctx := context.Background()
		if err := s.Store.SetPrice(ctx, models.Price{Spec: webtest.A100Spec, FromMonth: "2026-02", RateFen: 3000, OverflowRateFen: 5000}, webtest.T0); err != nil {
			t.Fatal(err)
		}
		hist, err := s.Store.PriceHistory(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var first, id int64
		for _, p := range hist {
			switch p.FromMonth {
			case "2026-01":
				first = p.ID
			case "2026-02":
				id = p.ID
			}
		}
		path := "/prices/changes/" + strconv.FormatInt(id, 10)

		list := webtest.Parse(t, s.Get("/prices").Body.String())
		effects := list.Find(`[data-testid=price-row] [data-testid=price-effect]`)
		if effects.Length() != 1 || effects.AttrOr("hx-get", "") != path {
			t.Errorf("the price list has %d change links loading %q, want one loading %s", effects.Length(), effects.AttrOr("hx-get", ""), path)
		}
		frag := s.Measured(path, "HX-Request", "true")
		said := strings.TrimSpace(webtest.Parse(t, frag.Body.String()).Find(`[data-testid=change-effect-text]`).Text())
		if frag.Code != http.StatusOK || !strings.HasPrefix(said, "Billed ¥") || !strings.HasSuffix(said, " more than at the old price") {
			t.Errorf("the list's sentence = %d %q", frag.Code, said)
		}

		page := webtest.Parse(t, s.Get(path).Body.String())
		if got := strings.TrimSpace(page.Find(`[data-testid=change-sentence]`).Text()); got != said {
			t.Errorf("the page says %q, the list %q", got, said)
		}
		if page.Find(`[data-testid=change-table]`).Length() != 1 || page.Find(`[data-testid=change-counter-table]`).Length() != 1 ||
			page.Find(`#change-measure[hx-get]`).Length() != 0 {
			t.Errorf("the page lacks its before/after or its repricing, or still polls")
		}
		// The after side is what February's bills say of A100: both projects pay the list.
		res, err := billing.MonthBills(ctx, s.Store, "2026-02", webtest.T0)
		if err != nil {
			t.Fatal(err)
		}
		var fen int64
		for _, b := range res.Bills {
			for _, l := range b.Lines {
				if l.Spec == webtest.A100Spec {
					fen += l.AmountFen
				}
			}
		}
		cells := page.Find(`[data-testid=change-cost] td`)
		if got := strings.TrimSpace(cells.Eq(1).Text()); fen == 0 || got != billing.FormatFen(fen) && got != "¥"+billing.FormatFen(fen) {
			t.Errorf("after's cost %q, February's A100 lines %d fen", got, fen)
		}
		repriced := page.Find(`[data-testid=change-repriced] td`)
		if strings.TrimSpace(repriced.Eq(1).Text()) != strings.TrimSpace(cells.Eq(1).Text()) || repriced.Eq(0).Text() == repriced.Eq(1).Text() {
			t.Errorf("repriced %q → %q, want the new side the bills' %q", repriced.Eq(0).Text(), repriced.Eq(1).Text(), cells.Eq(1).Text())
		}
		poll := s.Get(path, "HX-Request", "true", "HX-Target", "change-measure")
		if webtest.Parse(t, poll.Body.String()).Find(`#change-measure [data-testid=change-counter-table]`).Length() != 1 ||
			strings.Contains(strings.ToLower(poll.Body.String()), "<!doctype") {
			t.Errorf("the page's poll answers %s, want the body", poll.Body)
		}
		zh := webtest.Parse(t, s.Get(path, "Accept-Language", "zh-CN").Body.String())
		if got := zh.Find(`[data-testid=change-sentence]`).Text(); !strings.HasPrefix(got, "比按旧价多计费 ¥") {
			t.Errorf("zh sentence = %q", got)
		}

		for role, want := range map[string]int{"finance": http.StatusOK, "member": http.StatusForbidden, "lead": http.StatusForbidden, "viewer": http.StatusForbidden} {
			if r := w.As(role, path); r.Code != want {
				t.Errorf("GET %s as %s = %d, want %d", path, role, r.Code, want)
			}
		}
		for p, want := range map[string]int{"/prices/changes/" + strconv.FormatInt(first, 10): http.StatusNotFound,
			"/prices/changes/99999": http.StatusNotFound, "/prices/changes/x": http.StatusNotFound, "/prices/changes/-1": http.StatusNotFound} {
			if r := s.Get(p); r.Code != want {
				t.Errorf("GET %s = %d, want %d", p, r.Code, want)
			}
		}
	})
}
