package browser_test

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"kashi/web/webtest"
)

// TestBrowserAuditWords opens the audit log, after every action it records, in headless
// Chromium in both languages at 1600 px and on a 390 px phone: fields by the labels people
// see, users by name, a tags' change as before → after, subjects in the page's language,
// and no page that scrolls sideways.
func TestBrowserAuditWords(t *testing.T) {
	t.Parallel()
	w := webtest.NewAuditWorld(t)
	srv := httptest.NewServer(w.E)
	defer srv.Close()
	b := newBrowser(t, srv.URL, 2*time.Minute)
	if err := chromedp.Do(b.ctx, b.login("tester", "pw-tester-new")); err != nil {
		t.Fatal(err)
	}
	shootPages(t, b, srv.URL, "audit", []shotPage{
		{"all", "/audit", `[data-testid=audit-row]`},
		{"vision", "/audit?project=vision", `[data-testid=audit-row][data-action=project-tags]`},
	})
	for lang, want := range map[string]map[string]string{
		"en": {
			`[data-action=pool-config] [data-field=max_nodes]`:       "Max nodes 4 → 6",
			`[data-action=approve] [data-field=decided_by]`:          "decided by — → tester",
			`[data-action=project-tags] [data-field=tags]`:           "tags cv, gpu-heavy → cv, 课题组 视觉",
			`[data-action=bill-issue] [data-testid=audit-subject]`:   "bill of vision for 2026-02 vision",
			`[data-action=request-create] [data-field=requested_by]`: "requested by — → member",
		},
		"zh-CN": {
			`[data-action=pool-config] [data-field=max_nodes]`:       "最多节点数 4 → 6",
			`[data-action=approve] [data-field=decided_by]`:          "审批人 — → tester",
			`[data-action=project-tags] [data-field=tags]`:           "标签 cv, gpu-heavy → cv, 课题组 视觉",
			`[data-action=bill-issue] [data-testid=audit-subject]`:   "vision 的 2026-02 账单 vision",
			`[data-action=request-create] [data-field=requested_by]`: "申请人 — → member",
		},
	} {
		if err := chromedp.Do(b.ctx, chromedp.EmulateViewport(1600, 900), chromedp.Navigate(srv.URL+"/lang?set="+lang),
			chromedp.Navigate(srv.URL+"/audit"), chromedp.WaitVisible(css(`[data-testid=audit-row]`))); err != nil {
			t.Fatal(err)
		}
		for sel, text := range want {
			// The first match's text, with the value beside a field's label.
			got, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`(() => {
				const e = document.querySelector('[data-testid=audit-row]`+sel+`');
				if (!e) return '';
				const s = e.tagName === 'DT' ? e.textContent + ' ' + e.nextElementSibling.textContent : e.textContent;
				return s.replace(/\s+/g, ' ').trim();
			})()`))
			if err != nil || got != text {
				t.Errorf("%s %s = %q, want %q (%v)", lang, sel, got, text, err)
			}
		}
	}
}
