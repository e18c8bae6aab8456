package web_test

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/PuerkitoBio/goquery"

	"kashi/models"
	"kashi/phrase"
	"kashi/web/webtest"
)

// TestCrawlWords walks, as each role (viewer, member, lead, finance, admin), every page
// reachable from the navigation by following links (at most crawlPages a role, three
// variants of each page's query), in Chinese and in English, plus for each page found the
// same page of an id that does not exist and with each query parameter given a bad value
// (the error pages). It fails on what a page's visible text should never hold: a catalog key
// ("area.key"), a field's name ending in _fen or _id, a code such as "request-approved"
// (lower-case words joined by '-' that are no name the fixture gave), in Chinese an error
// message without Chinese, and in English "1 GPUs" and the like. Code and preformatted
// text (a command, a CSV header to write) are machine text and not read.
func TestCrawlWords(t *testing.T) {
	ps, _ := webtest.SeededPages(t)
	tokens := crawlWorld(t, ps)

	catalog := phrase.Locale{Lang: phrase.LangEN}.Catalog()
	key := regexp.MustCompile(`\b[a-z_]+\.[a-z_.-]+[a-z]\b`)
	field := regexp.MustCompile(`\b[a-z][a-z0-9]*_(fen|id)\b`)
	code := regexp.MustCompile(`(^|[^\w.-])([a-z]+(?:-[a-z]+)+)([^\w-]|$)`)
	plural := regexp.MustCompile(`(^|[^\d.,])1 (GPUs|cards|nodes|tasks|hours|card-hours|projects|bills|requests|windows|times|days|minutes|members|users|runs|machines)\b`)
	names := map[string]bool{"kashi-agent": true} // hyphenated names the fixture gave
	for _, role := range []string{"viewer", "member", "lead", "finance", "admin"} {
		for _, lang := range []string{phrase.LangZH, phrase.LangEN} {
			hdr := append(webtest.Bearer(tokens[role]), "Cookie", "kashi_lang="+lang)
			seen := map[string]string{} // path → what its page's problem was, for one report per page
			paths := crawl(t, ps, hdr)
			t.Logf("%s %s: %d pages", role, lang, len(paths))
			for _, path := range paths {
				r := ps.Get(path, hdr...)
				if !strings.HasPrefix(r.Header().Get("Content-Type"), "text/html") {
					continue
				}
				doc := webtest.Parse(t, r.Body.String())
				doc.Find("script, style, noscript, code, pre").Remove() // code shows machine text as it is, by design
				text := spaced(doc.Find("body"))
				var problems []string
				for _, m := range key.FindAllString(text, -1) {
					if _, ok := catalog[m]; ok {
						problems = append(problems, "the catalog key "+m)
					}
				}
				for _, m := range field.FindAllString(text, -1) {
					problems = append(problems, "the field name "+m)
				}
				for _, m := range code.FindAllStringSubmatch(text, -1) {
					if lang == phrase.LangZH && !names[m[2]] { // English has words such as card-hours
						problems = append(problems, "the code "+m[2])
					}
				}
				if lang == phrase.LangEN {
					for _, m := range plural.FindAllString(text, -1) {
						problems = append(problems, "the plural "+strings.TrimSpace(m)+" in "+strconv.Quote(webtest.Around(text, strings.TrimSpace(m))))
					}
				} else if msg := strings.TrimSpace(doc.Find(`[data-testid=error-msg]`).Text()); msg != "" &&
					!strings.ContainsFunc(msg, func(r rune) bool { return unicode.Is(unicode.Han, r) }) {
					problems = append(problems, "the English error "+msg)
				}
				slices.Sort(problems)
				if p := strings.Join(slices.Compact(problems), "; "); p != "" && seen[path] != p {
					seen[path] = p
					t.Errorf("%s %s %s (%d) shows %s", role, lang, path, r.Code, p)
				}
			}
		}
	}
}

// crawlPages bounds the pages a crawl opens.
const crawlPages = 400

// crawl follows the links of the pages it opens from "/", with hdr (a role's token and
// language), and returns the paths it found: each page's path with at most three variants of
// its query, and for each its error pages (an id that does not exist, a bad query value).
func crawl(t *testing.T, ps webtest.PoolServer, hdr []string) []string {
	t.Helper()
	digits := regexp.MustCompile(`/\d+(/|$)`)
	shape := func(u *url.URL) string { // the page a path is a variant of
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range u.Query() {
				if !yield(k) {
					return
				}
			}
		})
		return digits.ReplaceAllString(u.Path, "/#$1") + "?" + strings.Join(keys, "&")
	}
	var out []string
	found, variants := map[string]bool{"/": true}, map[string]int{}
	queue := []string{"/"}
	for len(queue) > 0 && len(out) < crawlPages {
		path := queue[0]
		queue = queue[1:]
		out = append(out, path)
		r := ps.Get(path, hdr...)
		if r.Code >= 300 || !strings.HasPrefix(r.Header().Get("Content-Type"), "text/html") {
			continue
		}
		webtest.Parse(t, r.Body.String()).Find("a[href]").Each(func(_ int, a *goquery.Selection) {
			href := a.AttrOr("href", "")
			u, err := url.Parse(href)
			if _, download := a.Attr("download"); err != nil || download || u.IsAbs() || !strings.HasPrefix(u.Path, "/") ||
				strings.HasPrefix(u.Path, "/static/") || strings.HasPrefix(u.Path, "/api/") || u.Path == "/lang" ||
				u.Path == "/metrics" || u.Path == "/healthz" || strings.HasSuffix(u.Path, ".csv") || strings.HasSuffix(u.Path, ".xlsx") {
				return
			}
			u.Fragment = ""
			p := u.String()
			if found[p] {
				return
			}
			found[p] = true
			s := shape(u)
			if variants[s]++; variants[s] > 3 {
				return
			}
			queue = append(queue, p)
			if variants[s] > 1 {
				return
			}
			// The first of its shape brings its error pages: an id that does not exist, a bad
			// value for each query parameter.
			var bad []string
			if digits.MatchString(u.Path) {
				bad = append(bad, digits.ReplaceAllString(u.Path, "/999999$1"))
			}
			for k := range u.Query() {
				v := u.Query()
				v.Set(k, "zz")
				bad = append(bad, u.Path+"?"+v.Encode())
			}
			for _, b := range bad {
				if !found[b] {
					found[b] = true
					queue = append(queue, b)
				}
			}
		})
	}
	if len(out) < 20 {
		t.Errorf("the crawl found %d pages, want the site: %q", len(out), out)
	}
	return out
}

// crawlWorld gives the seeded server one user per role with an API token ("admin" is the
// fixture's tester), a lead and a member of vision, and notifications of each kind a quota
// request makes: pending for the lead, approved and rejected for the member.
func crawlWorld(t *testing.T, ps webtest.PoolServer) map[string]string {
	t.Helper()
	ctx := context.Background()
	vision, err := ps.Store.ProjectByName(ctx, "vision")
	if err != nil {
		t.Fatal(err)
	}
	tokens := map[string]string{"admin": ps.Token}
	users := map[string]models.User{}
	for _, u := range []struct{ name, role, prole string }{
		{"viewer", models.RoleViewer, ""}, {"finance", models.RoleFinance, ""},
		{"member", models.RoleUser, models.ProjectRoleMember}, {"lead", models.RoleUser, models.ProjectRoleLead},
	} {
		user, err := ps.Store.CreateUser(ctx, u.name, "pw-"+u.name, u.role, webtest.T0)
		if err != nil {
			t.Fatal(err)
		}
		if u.prole != "" {
			if err := ps.Store.SetMember(ctx, vision.ID, user.ID, u.prole); err != nil {
				t.Fatal(err)
			}
		}
		if tokens[u.name], _, err = ps.Store.CreateAPIToken(ctx, user.ID, "crawl", models.ScopeWrite, webtest.T0); err != nil {
			t.Fatal(err)
		}
		users[u.name] = user
	}
	// The last one asks above the contract (2): the lead reads it as needing an admin.
	for i, decide := range []string{"approve", "reject", "", ""} {
		share := []int{1, 2, 1, 3}[i]
		req, err := ps.Store.CreateQuotaRequest(ctx, users["member"], vision.ID, "A100-80G", models.RequestGuarantee,
			models.QuotaChange{GuaranteedGPUs: &share}, fmt.Sprintf("deadline %d", i), webtest.T0)
		if err != nil {
			t.Fatal(err)
		}
		if decide == "" {
			continue
		}
		if r := ps.Post(fmt.Sprintf("/api/v1/requests/%d/%s", req.ID, decide), `{"comment":"ok"}`, webtest.Bearer(tokens["lead"])...); r.Code != 200 {
			t.Fatalf("%s request %d = %d %s", decide, req.ID, r.Code, r.Body)
		}
	}
	return tokens
}
