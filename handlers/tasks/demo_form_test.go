package tasks_test

import (
	"strings"
	"testing"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/web/webtest"
)

// TestDemoFormSaysWhichCommandsRun: on the demo, whose simulated nodes run kashi-sim commands
// only, the submit form's command help says which commands run and how to write them, in both
// languages; a real installation's form says nothing of them.
func TestDemoFormSaysWhichCommandsRun(t *testing.T) {
	cfg := webtest.TestCfg()
	cfg.Demo = true
	demo := webtest.NewServerOn(t, modelstest.SQLite(t, models.Options{}), cfg)
	demo.Projects("vision")
	member := demo.Member("alice", "vision")
	for lang, want := range map[string]string{
		"en":    "On this demo the simulated nodes run only simulated tasks, one argument per line: kashi-sim, then --shape=train",
		"zh-CN": "本演示中的模拟节点只运行模拟任务，每行一个参数：kashi-sim，然后 --shape=train",
	} {
		doc := webtest.Parse(t, demo.Get("/queue", append(webtest.Bearer(member), "Accept-Language", lang)...).Body.String())
		if got := doc.Find(`#help-command`).Text(); !strings.Contains(got, want) {
			t.Errorf("%s: the demo's command help = %q, want it to say %q", lang, got, want)
		}
	}
	s := webtest.NewServer(t)
	s.Projects("vision")
	doc := webtest.Parse(t, s.Get("/queue", webtest.Bearer(s.Member("alice", "vision"))...).Body.String())
	if got := doc.Find(`#help-command`).Text(); got == "" || strings.Contains(got, "kashi-sim") {
		t.Errorf("a real installation's command help = %q, want one without kashi-sim", got)
	}
}
