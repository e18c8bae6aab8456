package tasks_test

import (
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"kashi/models"
	"kashi/web/webtest"
)

// TestSubmitFormProjects: the submit form offers only the projects the viewer may submit to,
// preselects the only one or else the last used, and is not shown to someone who may submit
// to none.
func TestSubmitFormProjects(t *testing.T) {
	s := webtest.NewServer(t)
	s.Projects("vision", "nlp", "speech")
	one := s.Member("alice", "vision")
	two := s.Member("bob", "vision")
	if p, err := s.Store.ProjectByName(t.Context(), "nlp"); err == nil {
		u, _ := s.Store.UserByName(t.Context(), "bob")
		s.Store.SetMember(t.Context(), p.ID, u.ID, models.ProjectRoleMember)
	}
	s.Register(webtest.Node("n1").Cards(webtest.A100Name, webtest.A100MiB, 2))
	b := webtest.Task("last").Of("nlp").Ready()
	b.Nt.Owner = "bob"
	s.Create(b, webtest.T0.Add(-time.Hour))
	viewer, err := s.Store.CreateUser(t.Context(), "vic", "pw-vic", models.RoleViewer, webtest.T0)
	if err != nil {
		t.Fatal(err)
	}
	vtok, _, _ := s.Store.CreateAPIToken(t.Context(), viewer.ID, "t", models.ScopeRead, webtest.T0)

	form := func(tok string) (options []string, selected string, shown bool) {
		doc := webtest.Parse(t, s.Get("/queue", webtest.Bearer(tok)...).Body.String())
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
