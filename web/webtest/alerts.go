// The idle-notice tests' world: a task that holds a card and was told it is idle.

package webtest

import (
	"context"
	"strconv"
	"testing"
	"time"

	"kashi/models"
)

// IdleWorld is a server with alice, a member of vision, whose task holds a card and got an
// idle notice; lena, vision's lead; carol, a member of vision; and bob, a member of speech.
type IdleWorld struct {
	*Server
	Alice, Bob, Lena, Carol string      // API tokens
	AliceID                 int64       // alice's user id
	Task                    models.Task // alice's task on GPU-a100-01-0, with an idle notice
}

// NewIdleWorld builds an IdleWorld over a fresh server.
func NewIdleWorld(t *testing.T) IdleWorld {
	t.Helper()
	s := NewServer(t)
	ctx := context.Background()
	s.Projects("vision", "speech")
	w := IdleWorld{Server: s}
	for _, u := range []struct {
		name, project, role string
		tok                 *string
	}{{"alice", "vision", models.ProjectRoleMember, &w.Alice}, {"bob", "speech", models.ProjectRoleMember, &w.Bob},
		{"lena", "vision", models.ProjectRoleLead, &w.Lena}, {"carol", "vision", models.ProjectRoleMember, &w.Carol}} {
		user, err := s.Store.CreateUser(ctx, u.name, "pw-"+u.name, models.RoleUser, T0)
		if err != nil {
			t.Fatal(err)
		}
		p, _ := s.Store.ProjectByName(ctx, u.project)
		s.Store.SetMember(ctx, p.ID, user.ID, u.role)
		*u.tok, _, _ = s.Store.CreateAPIToken(ctx, user.ID, "t", models.ScopeWrite, T0)
		if u.name == "alice" {
			w.AliceID = user.ID
		}
	}
	s.Register(Node("a100-01").InPool("a100").Cards(A100Name, A100MiB, 2))
	b := Task("train").Of("vision").Ready()
	b.Nt.Owner = "alice"
	w.Task = s.Create(b, T0.Add(-2*time.Hour))
	s.Place(w.Task, T0.Add(-2*time.Hour), "GPU-a100-01-0")
	if err := s.Store.SetReclaimNotice(ctx, w.Task.ID, T0.Add(-5*time.Minute)); err != nil {
		t.Fatal(err)
	}
	return w
}

// Path is the API path of verb on the world's task: /api/v1/tasks/<id>/<verb>.
func (w IdleWorld) Path(verb string) string {
	return "/api/v1/tasks/" + strconv.FormatInt(w.Task.ID, 10) + "/" + verb
}
