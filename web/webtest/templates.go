// The templates tests' fixture and the template JSON they read back.

package webtest

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"
)

// TemplateFixture is a server with projects vision and nlp, a 4-GPU node, vision's lead and
// member and nlp's member, with their tokens and vision's id.
type TemplateFixture struct {
	S                    *Server
	Lead, Member, NLPMem string // API tokens of vision's lead and member and of nlp's member
	Vision               int64  // vision's project id
}

// NewTemplateFixture builds a TemplateFixture over a fresh server.
func NewTemplateFixture(t *testing.T) TemplateFixture {
	s := NewServer(t)
	s.Projects("vision", "nlp")
	s.Register(Node("n1").InPool("a100").Cards(A100Name, A100MiB, 4))
	p, err := s.Store.ProjectByName(context.Background(), "vision")
	if err != nil {
		t.Fatal(err)
	}
	return TemplateFixture{S: s, Lead: s.MemberAs("lee", "vision", "lead"), Member: s.Member("mia", "vision"),
		NLPMem: s.Member("nod", "nlp"), Vision: p.ID}
}

// TemplateOut is a template as the API answers it: the JSON the tests read back.
type TemplateOut struct {
	ID       int64    `json:"id"`
	Version  int      `json:"version"`
	GPUs     int      `json:"gpus"`
	Uses     int64    `json:"uses"`
	EnvNames []string `json:"env_names"`
	Versions []struct {
		Version int    `json:"version"`
		By      string `json:"by"`
		Changes []struct {
			Field, Before, After string
		} `json:"changes"`
	} `json:"versions"`
	Schedules []struct {
		ID        int64       `json:"id"`
		Suspended bool        `json:"suspended"`
		Next      []time.Time `json:"next"`
	} `json:"schedules"`
}

// TrainTemplate is the body of a one-card template "train" with an env name and a workdir.
const TrainTemplate = `{"name": "train", "gpus": 1, "command": ["python", "train.py"], "env_names": ["WANDB_KEY"], "workdir": "/data"}`

// CreateTemplate has vision's lead create TrainTemplate in vision, fails the test unless it
// is 201, and returns the template.
func (f TemplateFixture) CreateTemplate(t *testing.T) TemplateOut {
	t.Helper()
	w := f.S.Post(fmt.Sprintf("/api/v1/projects/%d/templates", f.Vision), TrainTemplate, Bearer(f.Lead)...)
	if w.Code != http.StatusCreated {
		t.Fatalf("create template = %d %s, want 201", w.Code, w.Body)
	}
	return Decode[TemplateOut](t, w)
}
