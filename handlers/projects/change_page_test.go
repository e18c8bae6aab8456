package projects_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"kashi/models"
	"kashi/web/webtest"
)

// changePage reads a change's page at path (/projects/V/KIND/C) as every change page of a
// project is read: the sentence the projects page's list loads (its HTMX fragment, measured)
// must be the page's own, with the sentence starting as want says, and the page's poll must
// answer its body only. It returns the page.
func changePage(t *testing.T, s *webtest.Server, path, want string) *goquery.Document {
	t.Helper()
	frag := s.Measured(path, "HX-Request", "true")
	said := strings.TrimSpace(webtest.Parse(t, frag.Body.String()).Find(`[data-testid=change-effect-text]`).Text())
	if frag.Code != http.StatusOK || !strings.HasPrefix(said, "This change ") || !strings.Contains(said, want) {
		t.Errorf("the list's sentence = %d %q", frag.Code, said)
	}
	page := webtest.Parse(t, s.Get(path).Body.String())
	if got := strings.TrimSpace(page.Find(`[data-testid=change-sentence]`).Text()); got != said {
		t.Errorf("the page says %q, the list %q", got, said)
	}
	poll := s.Get(path, "HX-Request", "true", "HX-Target", "change-measure")
	if webtest.Parse(t, poll.Body.String()).Find(`#change-measure [data-testid=change-counter-table]`).Length() != 1 ||
		strings.Contains(strings.ToLower(poll.Body.String()), "<!doctype") {
		t.Errorf("the page's poll answers %s, want the body", poll.Body)
	}
	return page
}

// checkChangeAccess: vision's member and lead and admins open vision's change id of kind
// (quota-changes, reclaim-changes); a lead of another project, finance and viewers get 403;
// the change under another project, an unknown one, a bad project and the ids in missing 404.
func checkChangeAccess(t *testing.T, s *webtest.Server, w webtest.BillWorld, vision int64, kind string, id int64, missing ...int64) {
	t.Helper()
	under := func(p int64, c string) string {
		return "/projects/" + strconv.FormatInt(p, 10) + "/" + kind + "/" + c
	}
	path := under(vision, strconv.FormatInt(id, 10))
	visionLead := s.MemberAs("vic", "vision", models.ProjectRoleLead)
	for who, want := range map[string]int{"member": http.StatusOK, "lead": http.StatusForbidden, "finance": http.StatusForbidden,
		"viewer": http.StatusForbidden} {
		if r := w.As(who, path); r.Code != want {
			t.Errorf("GET %s as %s = %d, want %d", path, who, r.Code, want)
		}
	}
	if r := s.Get(path, webtest.Bearer(visionLead)...); r.Code != http.StatusOK {
		t.Errorf("GET %s as vision's lead = %d", path, r.Code)
	}
	nlp, err := s.Store.ProjectByName(context.Background(), "nlp")
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{under(vision, "99999"), under(nlp.ID, strconv.FormatInt(id, 10)), "/projects/x/" + kind + "/1"}
	for _, m := range missing {
		paths = append(paths, under(vision, strconv.FormatInt(m, 10)))
	}
	for _, p := range paths {
		if r := s.Get(p); r.Code != http.StatusNotFound {
			t.Errorf("GET %s = %d, want %d", p, r.Code, http.StatusNotFound)
		}
	}
}
