package webtest

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"
)

// templateFixture has projects vision and nlp, a 4-GPU node, vision's lead and member and
// nlp's member, and returns their tokens and vision's id.
type templateFixture struct {
	S                    *Server
	Lead, Member, NlpMem string
	Vision               int64
}

func NewTemplateFixture(t *testing.T) templateFixture {
	s := NewServer(t)
	s.Projects("vision", "nlp")
	s.Register(Node("n1").InPool("a100").Cards(A100Name, A100MiB, 4))
	p, err := s.Store.ProjectByName(context.Background(), "vision")
	if err != nil {
		t.Fatal(err)
	}
	return templateFixture{S: s, Lead: s.MemberAs("lee", "vision", "lead"), Member: s.Member("mia", "vision"),
		NlpMem: s.Member("nod", "nlp"), Vision: p.ID}
}

// template is the JSON the tests read back.
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

const TrainTemplate = `{"name": "train", "gpus": 1, "command": ["python", "train.py"], "env_names": ["WANDB_KEY"], "workdir": "/data"}`

func (f templateFixture) CreateTemplate(t *testing.T) TemplateOut {
	t.Helper()
	w := f.S.Post(fmt.Sprintf("/api/v1/projects/%d/templates", f.Vision), TrainTemplate, Bearer(f.Lead)...)
	if w.Code != http.StatusCreated {
		t.Fatalf("create template = %d %s, want 201", w.Code, w.Body)
	}
	return Decode[TemplateOut](t, w)
}
