package browser_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kashi/web/webtest"
)

// TestBrowserLeadApprovesGuarantee walks a lead's approval in headless Chromium: the
// navigation counts the pending request; the approvals page shows it with its context (the
// share now and asked, the use, the task waiting on the quota, the cost, the age), in English
// on a desktop and in Chinese on a 390×844 phone without sideways scrolling; the lead
// approves and the quota's guaranteed share changes.
func TestBrowserLeadApprovesGuarantee(t *testing.T) {
	t.Parallel()
	w := webtest.NewApprovalWorld(t)
	srv := httptest.NewServer(w.E)
	defer srv.Close()
	b := newBrowser(t, srv.URL, 90*time.Second)
	text := func(sel string) string {
		t.Helper()
		s, err := chromedp.Run(b.ctx, chromedp.Text(css(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v (screenshots in %s)", sel, err, b.shots)
		}
		return strings.Join(strings.Fields(s), " ")
	}
	err := chromedp.Do(b.ctx,
		b.login("lead", "pw-lead"),
		chromedp.WaitVisible(css(`[data-testid=nav-pending]`)),
		chromedp.Click(css(`a[href="/approvals"]`)),
		chromedp.WaitVisible(css(`[data-testid=request-context] [data-testid=ctx-current]`)),
		b.shot("approve-1-desktop-en.png"),
	)
	if err != nil {
		t.Fatalf("approvals: %v (screenshots in %s)", err, b.shots)
	}
	if got := text(`[data-testid=nav-pending]`); got != "1" {
		t.Errorf("pending count = %q, want 1", got)
	}
	for sel, want := range map[string]string{
		`[data-testid=ctx-current]`: "0 GPUs", `[data-testid=ctx-requested]`: "2 GPUs", `[data-testid=ctx-diff]`: "+2 GPUs",
		`[data-testid=ctx-use-now]`: "2 of 2 GPUs", `[data-testid=ctx-waiting]`: fmt.Sprintf("#%d eval 2 GPUs", w.Waiting.ID),
		`[data-testid=ctx-cost]`: "¥21,330.00 if fully used until the month ends", `[data-testid=ctx-age]`: "1h 30m",
	} {
		if got := text(sel); got != want {
			t.Errorf("%s = %q, want %q", sel, got, want)
		}
	}
	err = chromedp.Do(b.ctx,
		chromedp.EmulateViewport(390, 844),
		chromedp.Navigate(srv.URL+"/lang?set=zh-CN"),
		chromedp.Navigate(srv.URL+"/approvals"),
		chromedp.WaitVisible(css(`[data-testid=ctx-current]`)),
		b.shot("approve-2-phone-zh.png"),
	)
	if err != nil {
		t.Fatalf("approvals on a phone: %v (screenshots in %s)", err, b.shots)
	}
	if got := text(`[data-testid=ctx-diff]`); got != "+2 卡" {
		t.Errorf("difference in Chinese = %q, want +2 卡", got)
	}
	if width, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); err != nil || width > 390 {
		t.Errorf("the approvals page is %d px wide on a phone, want at most 390 (%v)", width, err)
	}
	err = chromedp.Do(b.ctx,
		chromedp.Click(css(`[data-testid=approve-ask] summary`)), // approving asks first, with its cost
		chromedp.WaitVisible(css(`[data-testid=approve-question]`)),
		b.shot("approve-3-phone-zh-asked.png"),
		chromedp.SendKeys(css(`[data-testid=decide-form] input[name=comment]`), "两张卡都保障"),
		chromedp.Click(css(`[data-testid=approve-button]`)),
		chromedp.WaitVisible(css(`[data-testid=notice]`)),
		b.shot("approve-3-phone-zh-approved.png"),
	)
	if err != nil {
		t.Fatalf("approve: %v (screenshots in %s)", err, b.shots)
	}
	p, _ := w.Store.ProjectByName(context.Background(), "vision")
	if qs, err := w.Store.Quotas(context.Background(), p.ID); err != nil || qs[0].GuaranteedGPUs != 2 {
		t.Errorf("quota after approval = %+v, %v; want 2 guaranteed", qs, err)
	}
	if n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.querySelectorAll('[data-testid=nav-pending]').length`)); err != nil || n != 0 {
		t.Errorf("pending badges after approving = %d, %v; want none", n, err)
	}
	t.Logf("screenshots in %s", b.shots)
}

// TestBrowserProjectAdmin walks an admin's set-up of a project in headless Chromium: adds it
// with its tags, adds a lead, sets its first quota with every contract field, and finds each
// change in the audit log; then the admin pages are opened on a 390×844 phone in both
// languages and none scrolls sideways.
func TestBrowserProjectAdmin(t *testing.T) {
	t.Parallel()
	w := webtest.NewBillWorld(t)
	srv := httptest.NewServer(w.E)
	defer srv.Close()
	b := newBrowser(t, srv.URL, 120*time.Second)
	card := `[data-project=speech] `
	err := chromedp.Do(b.ctx,
		b.login("tester", "pw-tester"),
		chromedp.Navigate(srv.URL+"/projects"),
		chromedp.WaitVisible(css(`[data-testid=project-create-form]`)),
		chromedp.SendKeys(css(`[data-testid=project-create-form] input[name=name]`), "speech"),
		chromedp.SendKeys(css(`[data-testid=project-create-form] input[name=tags]`), "课题组 语音, CC-2201"),
		chromedp.Click(css(`[data-testid=project-create-submit]`)),
		chromedp.WaitReady(css(card+`[data-testid=quota-form][data-new=true]`)),
		chromedp.Click(css(card+`details:has([data-testid=quota-form][data-new=true]) > summary`)),
		chromedp.WaitVisible(css(card+`[data-testid=quota-form][data-new=true] input[name=max_gpus]`)),
		chromedp.SendKeys(css(card+`[data-testid=quota-form][data-new=true] input[name=spec]`), "A100-80G"),
		chromedp.SendKeys(css(card+`[data-testid=quota-form][data-new=true] input[name=max_gpus]`), "4"),
		chromedp.SendKeys(css(card+`[data-testid=quota-form][data-new=true] input[name=guaranteed_gpus]`), "1"),
		chromedp.SendKeys(css(card+`[data-testid=quota-form][data-new=true] input[name=budget_card_hours]`), "600"),
		chromedp.Click(css(card+`[data-testid=quota-form][data-new=true] input[name=overflow_allowed]`)),
		chromedp.SendKeys(css(card+`[data-testid=quota-form][data-new=true] input[name=overflow_rate]`), "30"),
		chromedp.SendKeys(css(card+`[data-testid=quota-form][data-new=true] input[name=remind_end_days]`), "14,7"),
		b.shot("padmin-1-quota-form.png"),
		chromedp.Click(css(card+`[data-testid=quota-form][data-new=true] [data-testid=quota-submit]`)),
		chromedp.WaitReady(css(card+`[data-testid=quota-form][data-spec=A100-80G][data-new=false]`)),
		chromedp.Click(css(card+`details:has([data-testid=member-form]) > summary`)),
		chromedp.SendKeys(css(card+`[data-testid=member-form] input[name=user]`), "member"),
		chromedp.SetValue(css(card+`[data-testid=member-form] select[name=role]`), "lead"),
		chromedp.Click(css(card+`[data-testid=member-add]`)),
		chromedp.WaitReady(css(card+`[data-testid=member-row][data-user=member]`)),
		chromedp.Click(css(card+`details:has([data-testid=member-form]) > summary`)),
		chromedp.WaitVisible(css(card+`[data-testid=member-row][data-user=member]`)),
		b.shot("padmin-2-project-set-up.png"),
		chromedp.Navigate(srv.URL+"/audit?project=speech"),
		chromedp.WaitVisible(css(`[data-testid=audit-row]`)),
		b.shot("padmin-3-audit.png"),
	)
	if err != nil {
		t.Fatalf("project set-up: %v (screenshots in %s)", err, b.shots)
	}
	actions, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](
		`[...document.querySelectorAll('[data-testid=audit-row]')].map(r => r.dataset.action)`))
	if err != nil || strings.Join(actions, " ") != "role-change quota-change project-create" {
		t.Errorf("speech's audit = %v, %v; want role-change, quota-change, project-create", actions, err)
	}
	ctx := context.Background()
	p, err := w.Store.ProjectByName(ctx, "speech")
	if err != nil {
		t.Fatal(err)
	}
	if qs, _ := w.Store.Quotas(ctx, p.ID); len(qs) != 1 || qs[0].MaxGPUs != 4 || qs[0].GuaranteedGPUs != 1 || qs[0].BudgetCardHours != 600 ||
		!qs[0].OverflowAllowed || qs[0].OverflowRateFen != 3000 || qs[0].RemindEndDays != "7,14" {
		t.Errorf("speech's quotas = %+v", qs)
	}
	for _, lang := range []string{"en", "zh-CN"} {
		for _, path := range []string{"/projects", "/approvals", "/audit", "/prices", "/people", "/account", "/bills/vision/" + webtest.BillMonth} {
			name := fmt.Sprintf("padmin-phone-%s%s.png", lang, strings.ReplaceAll(path, "/", "-"))
			err := chromedp.Do(b.ctx,
				chromedp.EmulateViewport(390, 844),
				chromedp.Navigate(srv.URL+"/lang?set="+lang),
				chromedp.Navigate(srv.URL+path),
				chromedp.WaitVisible(css(`main`)),
				b.shot(name),
			)
			if err != nil {
				t.Fatalf("phone %s %s: %v", lang, path, err)
			}
			if width, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth`)); err != nil || width > 390 {
				t.Errorf("phone %s %s is %d px wide, want at most 390 (%s, %v)", lang, path, width, name, err)
			}
		}
	}
	t.Logf("screenshots in %s", b.shots)
}
