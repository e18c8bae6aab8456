package projects_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"kashi/billing"
	"kashi/models"
	"kashi/models/modelstest"
	"kashi/web/webtest"
)

// contractWorld is a fleet of A100s whose pool reaches 96 cards (12 machines of 8, one
// registered), two projects with an A100 quota of 24 cards at once (vision's guarantees 8,
// which its contract, set with it, is too), a price of ¥15 a card-hour, and vision's member mia and lead li,
// nlp's member nat and lead nora. The server's token is an admin's.
type contractWorld struct {
	*webtest.Server
	tok map[string]string
	ids map[string]int64 // project name → id
}

func newContractWorld(t *testing.T, store *models.Store) contractWorld {
	t.Helper()
	s := webtest.NewServerOn(t, store, webtest.TestCfg())
	ctx := context.Background()
	cfg := webtest.A100Config()
	cfg.MaxNodes = 12
	if _, err := s.Store.SavePoolConfig(ctx, "a100", cfg, "tester", "", webtest.T0.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	s.Register(webtest.Node("a100-01").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 8))
	if err := s.Store.SetPrice(ctx, models.Price{Spec: "A100-80G", FromMonth: "2026-01", RateFen: 1500, OverflowRateFen: 2500}, webtest.T0); err != nil {
		t.Fatal(err)
	}
	s.Projects("vision", "nlp")
	w := contractWorld{Server: s, tok: map[string]string{}, ids: map[string]int64{}}
	for _, p := range []string{"vision", "nlp"} {
		pr, _ := s.Store.ProjectByName(ctx, p)
		w.ids[p] = pr.ID
		if r := w.setQuota(t, p, 24, map[string]int{"vision": 8}[p]); r.Code != http.StatusOK {
			t.Fatalf("quota of %s = %d %s", p, r.Code, r.Body)
		}
	}
	w.tok["mia"], w.tok["li"] = s.Member("mia", "vision"), s.MemberAs("li", "vision", models.ProjectRoleLead)
	w.tok["nat"], w.tok["nora"] = s.Member("nat", "nlp"), s.MemberAs("nora", "nlp", models.ProjectRoleLead)
	return w
}

// setQuota sets a project's A100 quota through the admin's API, its contract what it sets
// (and what more says).
func (w contractWorld) setQuota(t *testing.T, project string, most, guaranteed int, more ...any) *httptest.ResponseRecorder {
	t.Helper()
	body := map[string]any{"spec": "A100-80G", "max_gpus": most, "guaranteed_gpus": guaranteed,
		"budget_card_hours": 10000, "starts_at": webtest.T0.AddDate(0, -1, 0), "ends_at": webtest.T0.AddDate(1, 0, 0)}
	for i := 0; i+1 < len(more); i += 2 {
		body[more[i].(string)] = more[i+1]
	}
	return w.Post(fmt.Sprintf("/api/v1/projects/%d/quotas", w.ids[project]), webtest.MustJSON(t, body))
}

// ask files a request by who and returns its id.
func (w contractWorld) ask(t *testing.T, who, project, kind string, change map[string]any) int64 {
	t.Helper()
	r := w.Post("/api/v1/requests", webtest.MustJSON(t, map[string]any{"project": project, "spec": "A100-80G", "kind": kind,
		"change": change, "reason": "peak"}), webtest.Bearer(w.tok[who])...)
	if r.Code != http.StatusCreated {
		t.Fatalf("%s files %s %v = %d %s", who, kind, change, r.Code, r.Body)
	}
	return webtest.Decode[struct{ ID int64 }](t, r).ID
}

// approve approves request id as who ("" for the admin).
func (w contractWorld) approve(id int64, who string) *httptest.ResponseRecorder {
	var hdr []string
	if who != "" {
		hdr = webtest.Bearer(w.tok[who])
	}
	return w.Post(fmt.Sprintf("/api/v1/requests/%d/approve", id), `{}`, hdr...)
}

// wantRefused checks an answer is status naming field, its message saying each of says.
func wantRefused(t *testing.T, what string, r *httptest.ResponseRecorder, status int, field string, says ...string) {
	t.Helper()
	e := webtest.Decode[struct{ Error, Field string }](t, r)
	if r.Code != status || e.Field != field {
		t.Errorf("%s = %d %+v, want %d naming %s", what, r.Code, e, status, field)
	}
	for _, s := range says {
		if !strings.Contains(e.Error, s) {
			t.Errorf("%s says %q, want it to say %q", what, e.Error, s)
		}
	}
}

// The finding: a member filed 21 reservations of 24 cards each over the same hours (the
// project's limit is 24) and the lead approved all 21, keeping 504 cards of a 96-card fleet.
// Now the first is booked and each other one is refused with 422 naming reserve_gpus and
// saying nothing is left; another project books what the fleet has left, and no more.
func TestOverlappingBookingsWithinTheLimit(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, store *models.Store) {
		w := newContractWorld(t, store)
		window := map[string]any{"reserve_gpus": 24, "reserve_begins": webtest.T0.Add(24 * time.Hour), "reserve_ends": webtest.T0.Add(33 * time.Hour)}
		var ids []int64
		for range 21 {
			ids = append(ids, w.ask(t, "mia", "vision", models.RequestReservation, window))
		}
		if r := w.approve(ids[0], "li"); r.Code != http.StatusOK {
			t.Fatalf("approving the first = %d %s", r.Code, r.Body)
		}
		for _, id := range ids[1:] {
			wantRefused(t, fmt.Sprintf("approving request %d", id), w.approve(id, "li"), http.StatusUnprocessableEntity, "reserve_gpus",
				"24 GPUs of its limit of 24 booked: 0 left")
		}
		// A window that ends as the booked one begins is the project's too.
		before := map[string]any{"reserve_gpus": 24, "reserve_begins": webtest.T0.Add(15 * time.Hour), "reserve_ends": webtest.T0.Add(24 * time.Hour)}
		if r := w.approve(w.ask(t, "mia", "vision", models.RequestReservation, before), "li"); r.Code != http.StatusOK {
			t.Errorf("approving the window before it = %d %s", r.Code, r.Body)
		}
		// nlp, its limit raised by an admin, books what the fleet has left at that hour.
		if r := w.setQuota(t, "nlp", 1000, 0); r.Code != http.StatusOK {
			t.Fatalf("raising nlp's limit = %d %s", r.Code, r.Body)
		}
		big := map[string]any{"reserve_gpus": 73, "reserve_begins": webtest.T0.Add(30 * time.Hour), "reserve_ends": webtest.T0.Add(40 * time.Hour)}
		r := w.Post("/api/v1/requests", webtest.MustJSON(t, map[string]any{"project": "nlp", "spec": "A100-80G", "kind": "reservation",
			"change": big, "reason": "peak"}), webtest.Bearer(w.tok["nat"])...)
		wantRefused(t, "filing 73 cards beside 24 booked of 96", r, http.StatusUnprocessableEntity, "reserve_gpus",
			"reach 96 GPUs and 24 of them are booked: 72 left, got 73")
		big["reserve_gpus"] = 72
		if r := w.approve(w.ask(t, "nat", "nlp", models.RequestReservation, big), "nora"); r.Code != http.StatusOK {
			t.Errorf("booking the 72 cards left = %d %s", r.Code, r.Body)
		}
		booked := webtest.Decode[[]struct {
			Project string
			GPUs    int
		}](t, w.Get("/api/v1/reservations"))
		if len(booked) != 3 {
			t.Errorf("booked windows %+v, want vision's two and nlp's one", booked)
		}
	})
}

// The finding: a lead gave their own project a guarantee larger than the fleet. A lead now
// approves within the contract an admin set (403 naming the field above it); an admin may
// approve above it, up to what the fleet reaches; a guarantee past that is 422 for anyone,
// whether an admin sets it on the quota or approves a request.
func TestGuaranteeCeilings(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, store *models.Store) {
		w := newContractWorld(t, store)
		raise := w.ask(t, "mia", "vision", models.RequestLimit, map[string]any{"max_gpus": 100000})
		wantRefused(t, "the lead raising the limit past the contract", w.approve(raise, "li"), http.StatusForbidden, "max_gpus",
			"100000 GPUs at once is above the contract's 24: an admin approves it")
		share := w.ask(t, "mia", "vision", models.RequestGuarantee, map[string]any{"guaranteed_gpus": 9})
		wantRefused(t, "the lead approving a guarantee past the contract", w.approve(share, "li"), http.StatusForbidden, "guaranteed_gpus",
			"a guaranteed share of 9 GPUs is above the contract's 8")
		if r := w.approve(share, ""); r.Code != http.StatusOK {
			t.Fatalf("the admin approving it = %d %s", r.Code, r.Body)
		}
		projects := webtest.Decode[[]struct {
			Name   string
			Quotas []struct {
				GuaranteedGPUs         int `json:"guaranteed_gpus"`
				ContractGuaranteedGPUs int `json:"contract_guaranteed_gpus"`
				ContractMaxGPUs        int `json:"contract_max_gpus"`
			}
		}](t, w.Get("/api/v1/projects"))
		for _, p := range projects {
			if q := p.Quotas[0]; p.Name == "vision" && (q.GuaranteedGPUs != 9 || q.ContractGuaranteedGPUs != 9 || q.ContractMaxGPUs != 24) {
				t.Errorf("vision's quota after the admin's approval = %+v, want guaranteed 9 of a contract of 9, limit contract 24", q)
			}
		}
		// The admin sets nlp's quota: a guarantee of 100,000 cards is refused, saying what is left.
		wantRefused(t, "guaranteeing 100,000 cards", w.setQuota(t, "nlp", 100000, 100000), http.StatusUnprocessableEntity, "guaranteed_gpus",
			"reach 96 GPUs and 9 of them are guaranteed to other projects: 87 left, got 100000")
		if r := w.setQuota(t, "nlp", 100, 80); r.Code != http.StatusOK {
			t.Fatalf("guaranteeing 80 = %d %s", r.Code, r.Body)
		}
		// Filed while 16 were left, approved after nlp took 7 more: the admin is refused too.
		more := w.ask(t, "mia", "vision", models.RequestGuarantee, map[string]any{"guaranteed_gpus": 16})
		if r := w.setQuota(t, "nlp", 100, 87); r.Code != http.StatusOK {
			t.Fatalf("guaranteeing 87 = %d %s", r.Code, r.Body)
		}
		wantRefused(t, "the admin approving a guarantee past the fleet", w.approve(more, ""), http.StatusUnprocessableEntity, "guaranteed_gpus",
			"87 of them are guaranteed to other projects: 9 left, got 16")
		// An admin sets a contract above what the quota holds; below it is refused.
		if r := w.setQuota(t, "vision", 24, 9, "contract_max_gpus", 32, "contract_guaranteed_gpus", 9); r.Code != http.StatusOK {
			t.Errorf("setting a contract of 32 = %d %s", r.Code, r.Body)
		}
		wantRefused(t, "a contract under the limit", w.setQuota(t, "vision", 24, 9, "contract_max_gpus", 16), http.StatusUnprocessableEntity,
			"contract_max_gpus", "from the limit 24")
	})
}

// Approvals at once cannot together pass a ceiling: eight guarantees of 20 cards, each of a
// project of its own, approved by an admin at the same instant (the fleet reaches 96: four
// fit), and eight bookings of one project of 40 cards over the same hours (its limit is 64:
// one fits), approved by its lead at the same instant.
func TestApprovalsAtOnceKeepTheCeilings(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, store *models.Store) {
		w := newContractWorld(t, store)
		ctx := context.Background()
		if r := w.setQuota(t, "vision", 64, 8); r.Code != http.StatusOK {
			t.Fatalf("vision's quota = %d %s", r.Code, r.Body)
		}
		var shares, books []int64
		for i := range 8 {
			p := fmt.Sprintf("p%d", i)
			w.Projects(p)
			pr, _ := w.Store.ProjectByName(ctx, p)
			w.ids[p] = pr.ID
			if r := w.setQuota(t, p, 20, 0); r.Code != http.StatusOK {
				t.Fatalf("quota of %s = %d %s", p, r.Code, r.Body)
			}
			w.tok[p] = w.Member("m"+p, p)
			shares = append(shares, w.ask(t, p, p, models.RequestGuarantee, map[string]any{"guaranteed_gpus": 20}))
			books = append(books, w.ask(t, "mia", "vision", models.RequestReservation, map[string]any{"reserve_gpus": 40,
				"reserve_begins": webtest.T0.Add(24 * time.Hour), "reserve_ends": webtest.T0.Add(33 * time.Hour)}))
		}
		for name, c := range map[string]struct {
			ids   []int64
			who   string
			field string
			fit   int
		}{"guarantees": {shares, "", "guaranteed_gpus", 4}, "bookings": {books, "li", "reserve_gpus", 1}} {
			codes := make([]int, len(c.ids))
			fields := make([]string, len(c.ids))
			var wg sync.WaitGroup
			for i, id := range c.ids {
				wg.Go(func() {
					r := w.approve(id, c.who)
					codes[i], fields[i] = r.Code, webtest.Decode[struct{ Field string }](t, r).Field
				})
			}
			wg.Wait()
			ok := 0
			for i, code := range codes {
				switch {
				case code == http.StatusOK:
					ok++
				case code != http.StatusUnprocessableEntity || fields[i] != c.field:
					t.Errorf("%s: an approval = %d naming %q, want 200, or 422 naming %s", name, code, fields[i], c.field)
				}
			}
			if ok != c.fit {
				t.Errorf("%s approved at once: %d passed (%v), want the %d that fit", name, ok, codes, c.fit)
			}
		}
	})
}

// The finding: the bill charged 0 for an unused booking. A pool saved without the rule bills
// a booking's unused card-hours at the default, the card-hour rate in full.
func TestUnusedBookingBilledByDefault(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, store *models.Store) {
		w := newContractWorld(t, store)
		if r := w.Post("/api/v1/pools/a100", `{"provider":"sim","spec":"A100-80G","gpus_per_node":8,"max_nodes":12,"enabled":true,"region":"cn-gz1"}`); r.Code != http.StatusOK {
			t.Fatalf("saving the pool without the rule = %d %s", r.Code, r.Body)
		}
		id := w.ask(t, "mia", "vision", models.RequestReservation, map[string]any{"reserve_gpus": 8,
			"reserve_begins": webtest.T0.Add(24 * time.Hour), "reserve_ends": webtest.T0.Add(33 * time.Hour)})
		if r := w.approve(id, "li"); r.Code != http.StatusOK {
			t.Fatalf("approve = %d %s", r.Code, r.Body)
		}
		w.SetNow(webtest.T0.Add(48 * time.Hour))
		r := w.Get("/api/v1/bills/vision/2026-03")
		if r.Code != http.StatusOK {
			t.Fatalf("GET the bill = %d %s", r.Code, r.Body)
		}
		bill := webtest.Decode[billing.Bill](t, r)
		if len(bill.Bookings) != 1 || bill.Bookings[0].UnusedS != 72*3600 || bill.Bookings[0].ChargePct != 100 {
			t.Errorf("the bill's bookings = %+v, want 72 card-hours unused at 100 %%", bill.Bookings)
		}
		i := slices.IndexFunc(bill.Items, func(it billing.Item) bool { return it.Kind == billing.ItemBookingUnused })
		if i < 0 || bill.Items[i].AmountFen != 72*1500 {
			t.Errorf("the bill's items = %+v, want the 72 unused card-hours at ¥15: ¥1,080", bill.Items)
		}
	})
}

// The approvals page says, in both languages, how far a lead approves and what the fleet has
// left: a request above the contract reads "needs an admin" with why and offers the lead no
// approve button (a reject still); the admin sees it above the contract and may approve it,
// and the page refuses a lead's approval posted anyway with the same why. The request form
// shows each quota's ceilings.
func TestApprovalsPageShowsTheCeilings(t *testing.T) {
	w := newContractWorld(t, webtest.NewStore(t))
	above := w.ask(t, "mia", "vision", models.RequestGuarantee, map[string]any{"guaranteed_gpus": 12})
	within := w.ask(t, "mia", "vision", models.RequestReservation, map[string]any{"reserve_gpus": 24,
		"reserve_begins": webtest.T0.Add(24 * time.Hour), "reserve_ends": webtest.T0.Add(33 * time.Hour)})
	row := func(who, lang string, id int64) *goquery.Selection {
		hdr := []string{"Accept-Language", lang}
		if who != "" {
			hdr = append(webtest.Bearer(w.tok[who]), hdr...)
		}
		doc := webtest.DocOf(t, w.Get("/approvals", hdr...).Result())
		return doc.Find(fmt.Sprintf(`[data-testid=request-row][data-id="%d"]`, id))
	}
	text := func(s *goquery.Selection) string { return strings.Join(strings.Fields(s.Text()), " ") }
	for lang, want := range map[string][]string{
		"en": {"Needs an admin:", "a guaranteed share of 12 GPUs is above the contract's 8: an admin approves it",
			"a lead approves a guaranteed share up to 8 GPUs", "the A100-80G pools reach 96 GPUs; 0 GPUs guaranteed to other projects; 96 GPUs left",
			"this project has 0 GPUs of its 24 GPUs booked (24 GPUs left); the A100-80G pools have 0 GPUs of 96 GPUs booked (96 GPUs left)"},
		"zh-CN": {"需由管理员审批：", "保底份额 12 张 GPU 超出合同的 8 张：需由管理员审批", "负责人可批准的保底份额至多 8",
			"A100-80G 的资源池最多 96"},
	} {
		g, r := row("li", lang, above), row("li", lang, within)
		got := text(g.Find(`[data-testid=needs-admin]`)) + " " + text(g.Find(`[data-testid=ctx-contract]`)) + " " +
			text(g.Find(`[data-testid=ctx-room]`)) + " " + text(r.Find(`[data-testid=ctx-room]`))
		for _, s := range want {
			if !strings.Contains(got, s) {
				t.Errorf("%s: the lead's approvals page reads %q, want %q", lang, got, s)
			}
		}
		if g.Find(`[data-testid=approve-button]`).Length() != 0 || g.Find(`[data-testid=reject-button]`).Length() != 1 {
			t.Errorf("%s: above the contract the lead is offered approve, or not reject", lang)
		}
		if r.Find(`[data-testid=approve-button]`).Length() != 1 || r.Find(`[data-testid=needs-admin]`).Length() != 0 {
			t.Errorf("%s: within the contract the lead is not offered approve", lang)
		}
	}
	a := row("", "en", above)
	if a.Find(`[data-testid=approve-button]`).Length() != 1 || !strings.Contains(text(a.Find(`[data-testid=needs-admin]`)), "Above the contract; approving raises it:") {
		t.Errorf("the admin's row = %q, want it above the contract with an approve button", text(a))
	}
	// The refusals name the field as the pages label it: the lead's approval posted anyway,
	// and a booking past the limit filed on the request form (its input, "Amount").
	if r := w.approve(within, "li"); r.Code != http.StatusOK {
		t.Fatalf("approving the booking = %d %s", r.Code, r.Body)
	}
	for lang, want := range map[string][]string{
		"en": {"Guaranteed GPUs: a guaranteed share of 12 GPUs is above the contract's 8: an admin approves it",
			"Amount: from 2026-03-03 10:00 UTC to 2026-03-03 12:00 UTC the project has 24 GPUs of its limit of 24 booked: 0 left, got 1"},
		"zh-CN": {"保障卡数：保底份额 12 张 GPU 超出合同的 8 张：需由管理员审批", "数量：2026-03-03 10:00 UTC 至 2026-03-03 12:00 UTC 项目已预约 24 张 GPU（上限 24）：还剩 0 张，申请 1 张"},
	} {
		resp := w.Form(fmt.Sprintf("/approvals/%d", above), map[string][]string{"decision": {"approve"}},
			append(webtest.Bearer(w.tok["li"]), "Accept-Language", lang)...)
		if got := webtest.DocOf(t, resp).Find(`[data-testid=approve-error]`).Text(); resp.StatusCode != http.StatusForbidden || got != want[0] {
			t.Errorf("%s: the lead's approval posted from the page = %d %q, want 403 %q", lang, resp.StatusCode, got, want[0])
		}
		resp = w.Form("/projects/requests", map[string][]string{"project": {"vision"}, "spec": {"A100-80G"}, "kind": {"reservation"},
			"value": {"1"}, "begins": {"2026-03-03T10:00"}, "ends": {"2026-03-03T12:00"}, "reason": {"one more"}},
			append(webtest.Bearer(w.tok["mia"]), "Accept-Language", lang)...)
		if got := webtest.DocOf(t, resp).Find(`[data-testid=request-error]`).Text(); resp.StatusCode != http.StatusUnprocessableEntity || got != want[1] {
			t.Errorf("%s: a booking past the limit from the request form = %d %q, want 422 %q", lang, resp.StatusCode, got, want[1])
		}
	}
	for lang, want := range map[string]string{
		"en":    "A100-80G: a lead approves up to 24 GPUs at once (24 GPUs now), a guaranteed share up to 8 GPUs (8 GPUs now) and a budget up to 10,000 card-hours (10,000 now); above that, an admin. Its pools reach 96 GPUs, 0 GPUs of them guaranteed to other projects: 96 GPUs left to guarantee.",
		"zh-CN": "A100-80G：负责人可批准同时使用至多 24",
	} {
		doc := webtest.DocOf(t, w.Get("/projects", append(webtest.Bearer(w.tok["mia"]), "Accept-Language", lang)...).Result())
		if got := text(doc.Find(`[data-testid=request-ceiling][data-spec=A100-80G]`)); !strings.Contains(got, want) {
			t.Errorf("%s: the request form's ceiling = %q, want %q", lang, got, want)
		}
	}
}

// An admin sets the contract on the project's card: the quota form keeps it, and refuses one
// below the value it bounds, beside the field.
func TestQuotaFormSetsTheContract(t *testing.T) {
	w := newContractWorld(t, webtest.NewStore(t))
	path := fmt.Sprintf("/projects/%d/quotas", w.ids["vision"])
	form := func(contract string, hdr ...string) *http.Response {
		return w.Form(path, map[string][]string{"spec": {"A100-80G"}, "max_gpus": {"24"}, "guaranteed_gpus": {"8"},
			"budget_card_hours": {"10000"}, "starts_at": {"2026-02-01"}, "ends_at": {"2027-03-01"}, "contract_max_gpus": {contract},
			"contract_guaranteed_gpus": {"12"}, "contract_budget_card_hours": {""}}, hdr...)
	}
	if r := form("32"); r.StatusCode != http.StatusSeeOther {
		t.Fatalf("saving a contract of 32 = %d", r.StatusCode)
	}
	doc := webtest.DocOf(t, w.Get("/projects").Result())
	q := doc.Find(`[data-project=vision] [data-testid=quota-form][data-spec=A100-80G]`)
	for name, want := range map[string]string{"contract_max_gpus": "32", "contract_guaranteed_gpus": "12", "contract_budget_card_hours": "10000"} {
		if got := q.Find(`[name=`+name+`]`).AttrOr("value", ""); got != want {
			t.Errorf("the form's %s = %q, want %q", name, got, want)
		}
	}
	for lang, want := range map[string]string{
		"en":    "Contract's GPUs at once: must be 0 (the limit) or from the limit 24 to 100000, got 16",
		"zh-CN": "合同同时可用卡数：应为 0（即上限）或从上限 24 到 100000，收到 16",
	} {
		r := form("16", "Accept-Language", lang)
		doc := webtest.DocOf(t, r)
		if got := doc.Find(`[data-testid=admin-error][data-field=contract_max_gpus]`).Text(); r.StatusCode != http.StatusUnprocessableEntity || got != want {
			t.Errorf("%s: a contract under the limit = %d %q, want 422 beside contract_max_gpus: %q", lang, r.StatusCode, got, want)
		}
		if doc.Find(`[data-project=vision] [name=contract_max_gpus][aria-invalid=true]`).Length() != 1 {
			t.Errorf("%s: the contract's input is not marked invalid", lang)
		}
	}
}
