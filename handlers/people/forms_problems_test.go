package people_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"kashi/web/webtest"
)

// TestUserFormNamesEveryProblem: the add-user form names a bad name, role and password at
// once (422), by the labels people read, with the cursor on the name; nobody is added.
func TestUserFormNamesEveryProblem(t *testing.T) {
	w := webtest.NewBillWorld(t)
	r := w.Form("/people", url.Values{"name": {"bad name!"}, "role": {"king"}, "password": {"x"}}, "Accept-Language", "zh-CN")
	if r.StatusCode != http.StatusUnprocessableEntity {
		t.Fatalf("add user = %d, want 422", r.StatusCode)
	}
	doc := webtest.DocOf(t, r)
	var fields, texts []string
	doc.Find(`[data-testid=user-form-error]`).Each(func(_ int, s *goquery.Selection) {
		fields, texts = append(fields, s.AttrOr("data-field", "")), append(texts, s.Text())
	})
	if diff := cmp.Diff([]string{"name", "role", "password"}, fields); diff != "" {
		t.Errorf("fields named (-want +got):\n%s", diff)
	}
	for i, label := range []string{"名称", "角色", "密码"} {
		if i < len(texts) && !strings.HasPrefix(texts[i], label+"：") {
			t.Errorf("problem %d = %q, want it to name %s", i, texts[i], label)
		}
	}
	if got := doc.Find(`[data-testid=user-form] [autofocus]`).AttrOr("name", ""); got != "name" {
		t.Errorf("the cursor is on %q, want the name", got)
	}
	if n, _ := w.Store.Users(t.Context()); len(n) != 5 {
		t.Errorf("users after a refused add = %d, want 5", len(n))
	}
}

// TestDisableAsksFirst: disabling a user looks destructive and asks first, without
// JavaScript: the page's button opens a question naming the user, whose own button (styled
// as destructive) disables them.
func TestDisableAsksFirst(t *testing.T) {
	w := webtest.NewBillWorld(t)
	doc := webtest.DocOf(t, w.Get("/people").Result())
	row := doc.Find(`[data-testid=user-row][data-user=member]`)
	ask := row.Find(`details.confirm-step[data-testid=disable-ask]`)
	if ask.Length() != 1 || ask.AttrOr("open", "none") != "none" {
		t.Fatalf("member's row: no closed question before disabling:\n%s", webtest.Around(row.Text(), "member"))
	}
	if got := ask.Find(`summary`).AttrOr("class", ""); got != "danger" {
		t.Errorf("the disable button's class = %q, want danger", got)
	}
	if q := ask.Find(`.confirm-body p`).Text(); !strings.Contains(q, "member") || !strings.Contains(q, "signed out") {
		t.Errorf("the question = %q, want it to name member and say what happens", q)
	}
	if b := ask.Find(`form button[data-testid=disable-button]`); b.AttrOr("class", "") != "danger" {
		t.Errorf("the disabling button inside the question: class %q, want danger", b.AttrOr("class", ""))
	}
}
