package web_test

import (
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"kashi/models"
)

// TestSubmitFormProjects: the submit form offers only the projects the viewer may submit to,
// preselects the only one or else the last used, and is not shown to someone who may submit
// to none.
func TestSubmitFormProjects(t *testing.T) {
	s := newServer(t)
	s.projects("vision", "nlp", "speech")
	one := s.member("alice", "vision")
	two := s.member("bob", "vision")
	if p, err := s.store.ProjectByName(t.Context(), "nlp"); err == nil {
		u, _ := s.store.UserByName(t.Context(), "bob")
		s.store.SetMember(t.Context(), p.ID, u.ID, models.ProjectRoleMember)
	}
	s.register(node("n1").cards(a100Name, a100MiB, 2))
	b := task("last").of("nlp").ready()
	b.nt.Owner = "bob"
	s.create(b, t0.Add(-time.Hour))
	viewer, err := s.store.CreateUser(t.Context(), "vic", "pw-vic", models.RoleViewer, t0)
	if err != nil {
		t.Fatal(err)
	}
	vtok, _, _ := s.store.CreateAPIToken(t.Context(), viewer.ID, "t", models.ScopeRead, t0)

	form := func(tok string) (options []string, selected string, shown bool) {
		doc := parse(t, s.get("/queue", bearer(tok)...).Body.String())
		doc.Find(`#f-project option`).Each(func(_ int, o *goquery.Selection) {
			options = append(options, o.AttrOr("value", ""))
			if _, ok := o.Attr("selected"); ok {
				selected = o.AttrOr("value", "")
			}
		})
		return options, selected, doc.Find(`[data-testid=task-form]`).Length() == 1
	}
	tests := map[string]struct {
		tok      string
		options  []string
		selected string
		shown    bool
	}{
		"one project":      {one, []string{"vision"}, "vision", true},
		"two, last used":   {two, []string{"nlp", "vision"}, "nlp", true},
		"viewer sees none": {vtok, nil, "", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			options, selected, shown := form(tc.tok)
			got := []any{options, selected, shown}
			if diff := cmp.Diff([]any{tc.options, tc.selected, tc.shown}, got); diff != "" {
				t.Errorf("form (-want +got):\n%s", diff)
			}
		})
	}
}
