package pools_test

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"kashi/api"
	"kashi/models"
	"kashi/web/webtest"
)

// TestJoinTokensPage: an admin issues, from the join tokens page, a single-use token bound to
// a machine id and one bound to a registered node; each is shown once, with a copy button,
// and listed with what it is bound to and when it was made; the token registers that
// machine; revoking one lists it no more and a registration with it is refused; the shared
// token is revoked from the page too. The words are the page's language, and a form's
// problem names the field by its label (机器 ID), never its stored name. Everything is in
// the audit log.
func TestJoinTokensPage(t *testing.T) {
	s := webtest.NewServer(t)
	reg := s.Register(webtest.Node("gpu-07").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 1))
	b := s.LogIn("tester", "pw-tester", "10.0.0.1")
	page := func(w interface{ Result() *http.Response }) *goquery.Document {
		t.Helper()
		return webtest.DocOf(t, w.Result())
	}
	if w := b.Get("/join-tokens"); w.Code != http.StatusOK {
		t.Fatalf("GET /join-tokens = %d", w.Code)
	}
	doc := page(b.Get("/join-tokens"))
	if got := doc.Find(`[data-testid=join-shared]`).AttrOr("data-state", ""); got != "active" {
		t.Errorf("shared token state = %q, want active", got)
	}
	if doc.Find(`[data-testid=join-none]`).Length() != 1 {
		t.Errorf("a fresh page lists tokens")
	}

	// A token for a new machine: shown once, with its copy button.
	w := b.Form("/join-tokens", url.Values{"machine_id": {"rack-7-node-3"}})
	if w.Code != http.StatusCreated || w.Header().Get("Cache-Control") != "no-store" {
		t.Fatalf("issue a token = %d (Cache-Control %q), want 201, no-store", w.Code, w.Header().Get("Cache-Control"))
	}
	doc = page(w)
	token := doc.Find(`[data-testid=new-join-token]`).Text()
	if !strings.HasPrefix(token, "kj1_") || doc.Find(`[data-testid=copy-join-token][data-copy=new-join-token]`).Length() != 1 {
		t.Fatalf("new token %q, copy buttons %d; want a kj1_ token with its copy button", token, doc.Find(`[data-testid=copy-join-token]`).Length())
	}
	if got := doc.Find(`[data-testid=new-join-token-box] p`).First().Text(); !strings.Contains(got, "machine rack-7-node-3") {
		t.Errorf("the new token box says %q, want what it is for", got)
	}
	if strings.Contains(page(b.Get("/join-tokens")).Text(), token) {
		t.Errorf("the token is shown again on the next visit")
	}

	// A token for the registered node, from the node page's link.
	nodeLink := page(b.Get("/nodes/"+strconv.FormatInt(reg.ID, 10))).Find(`[data-testid=node-join-token]`).AttrOr("href", "")
	if nodeLink != "/join-tokens?node="+strconv.FormatInt(reg.ID, 10) {
		t.Fatalf("the node page's link = %q", nodeLink)
	}
	if got := page(b.Get(nodeLink)).Find(`select[name=node_id] option[selected]`).Text(); got != "gpu-07" {
		t.Errorf("the node page's link chooses %q, want gpu-07", got)
	}
	if w := b.Form("/join-tokens", url.Values{"node_id": {strconv.FormatInt(reg.ID, 10)}}); w.Code != http.StatusCreated {
		t.Fatalf("issue a token for the node = %d", w.Code)
	}
	rows := func(lang string) []string {
		b.Get("/lang?set=" + lang)
		var out []string
		page(b.Get("/join-tokens")).Find(`[data-testid=join-row] [data-testid=join-bound]`).Each(func(_ int, s *goquery.Selection) {
			out = append(out, s.Text())
		})
		return out
	}
	if got := rows("zh-CN"); strings.Join(got, "|") != "节点 gpu-07|机器 rack-7-node-3" {
		t.Errorf("zh rows = %q, want the node's then the machine's", got)
	}
	if got := rows("en"); strings.Join(got, "|") != "node gpu-07|machine rack-7-node-3" {
		t.Errorf("en rows = %q", got)
	}

	// Problems name the field by its label, in the page's language; the page keeps what was
	// typed.
	b.Get("/lang?set=zh-CN")
	for name, tc := range map[string]struct {
		form         url.Values
		code         int
		field, words string
	}{
		"nothing":     {url.Values{}, http.StatusUnprocessableEntity, "machine_id", "机器 ID：请给出令牌所属的机器 ID 或节点"},
		"no node":     {url.Values{"node_id": {"999"}}, http.StatusUnprocessableEntity, "node_id", "已注册节点：没有 ID 为 999 的已注册节点"},
		"not a node":  {url.Values{"node_id": {"x"}}, http.StatusBadRequest, "node_id", "已注册节点：请从列表中选择节点"},
		"too long id": {url.Values{"machine_id": {strings.Repeat("m", 300)}}, http.StatusUnprocessableEntity, "machine_id", "机器 ID：应为最多 255 字节的有效 UTF-8"},
	} {
		w := b.Form("/join-tokens", tc.form)
		doc := page(w)
		e := doc.Find(`[data-testid=join-error]`)
		if w.Code != tc.code || e.AttrOr("data-field", "") != tc.field || e.Text() != tc.words {
			t.Errorf("%s: %d %q %q, want %d naming %s: %q", name, w.Code, e.AttrOr("data-field", ""), e.Text(), tc.code, tc.field, tc.words)
		}
		if strings.Contains(e.Text(), "_id") {
			t.Errorf("%s: the problem shows a stored name: %q", name, e.Text())
		}
	}

	// The machine registers with its token, which is then spent.
	n := webtest.Node("rack-host").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 1)
	n.R.MachineID = "rack-7-node-3"
	if r := s.Post(api.PathRegister, webtest.MustJSON(t, n.R), webtest.Bearer(token)...); r.Code != http.StatusOK {
		t.Fatalf("register with the page's token = %d %s", r.Code, r.Body)
	}
	if got := rows("en"); strings.Join(got, "|") != "node gpu-07" {
		t.Errorf("after its use the list = %q, want the node's token only", got)
	}

	// Revoke the node's token: it lists no more, and a second revoke is refused.
	id := page(b.Get("/join-tokens")).Find(`[data-testid=join-row]`).AttrOr("data-token", "")
	w = b.Form("/join-tokens/"+id+"/revoke", nil)
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/join-tokens?revoked="+id {
		t.Fatalf("revoke = %d → %q", w.Code, w.Header().Get("Location"))
	}
	doc = page(b.Get("/join-tokens?revoked=" + id))
	if doc.Find(`[data-testid=join-row]`).Length() != 0 || doc.Find(`[data-testid=notice]`).Text() != "The join token is revoked." {
		t.Errorf("after the revoke: %d rows, notice %q", doc.Find(`[data-testid=join-row]`).Length(), doc.Find(`[data-testid=notice]`).Text())
	}
	b.Get("/lang?set=zh-CN")
	if w := b.Form("/join-tokens/"+id+"/revoke", nil); w.Code != http.StatusConflict || !strings.Contains(w.Body.String(), "已被使用或已吊销") {
		t.Errorf("revoke again = %d, want 409 in Chinese", w.Code)
	}
	if w := b.Form("/join-tokens/999/revoke", nil); w.Code != http.StatusNotFound {
		t.Errorf("revoke an unknown token = %d, want 404", w.Code)
	}

	// The shared token.
	if w := b.Form("/join-tokens/shared/revoke", nil); w.Code != http.StatusSeeOther {
		t.Fatalf("revoke the shared token = %d", w.Code)
	}
	if got := page(b.Get("/join-tokens")).Find(`[data-testid=join-shared]`).AttrOr("data-state", ""); got != "revoked" {
		t.Errorf("shared token state = %q, want revoked", got)
	}
	if r := s.Post(api.PathRegister, webtest.MustJSON(t, webtest.Node("new-one").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 1).R),
		webtest.Bearer(webtest.JoinToken)...); r.Code == http.StatusOK {
		t.Errorf("the revoked shared token still registers")
	}

	// A form without its CSRF token changes nothing.
	if w := b.Form("/join-tokens", url.Values{"_csrf": {"forged"}, "machine_id": {"m-x"}}); w.Code != http.StatusForbidden {
		t.Errorf("a form without its CSRF token = %d, want 403", w.Code)
	}
	log, err := s.Store.AuditLog(context.Background(), models.AuditFilter{})
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, e := range log {
		count[e.Action]++
	}
	if count[models.AuditJoinTokenCreate] != 2 || count[models.AuditJoinTokenRevoke] != 1 || count["join-token-revoke-shared"] != 1 {
		t.Errorf("audit log = %v, want 2 tokens issued, 1 revoked, the shared one revoked", count)
	}
}

// TestJoinTokensPageForAdmins: the page and its forms are an admin's; a lead is refused.
func TestJoinTokensPageForAdmins(t *testing.T) {
	s := webtest.NewServer(t)
	s.Projects("vision")
	lead := s.MemberAs("lena", "vision", models.ProjectRoleLead)
	if w := s.Get("/join-tokens", webtest.Bearer(lead)...); w.Code != http.StatusForbidden {
		t.Errorf("GET /join-tokens as a lead = %d, want 403", w.Code)
	}
	if r := s.Form("/join-tokens", url.Values{"machine_id": {"m"}}, webtest.Bearer(lead)...); r.StatusCode != http.StatusForbidden {
		t.Errorf("POST /join-tokens as a lead = %d, want 403", r.StatusCode)
	}
	if doc := webtest.Parse(t, s.Get("/pools", webtest.Bearer(lead)...).Body.String()); doc.Find(`[data-testid=join-tokens-link]`).Length() != 0 {
		t.Errorf("the pools page links a lead to the join tokens")
	}
	if doc := webtest.Parse(t, s.Get("/pools").Body.String()); doc.Find(`[data-testid=join-tokens-link]`).AttrOr("href", "") != "/join-tokens" {
		t.Errorf("the pools page does not link an admin to the join tokens")
	}
}
