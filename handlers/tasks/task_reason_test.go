package tasks_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/api"
	"kashi/web/webtest"
)

// reclaimedIn is the reason of webtest.ReclaimedTask in words, by language.
var reclaimedIn = map[string]string{
	"en":    "task %d of alice; cards idle for 2h; no answer to the notice of 08:29 within 30m",
	"zh-CN": "任务 %d（提交人 alice）；卡已闲置 2小时；08:29 的提醒在 30分钟 内无人回应",
}

// TestReclaimedReasonInWords: a reclaimed task's reason, stored as the scaling loop's phrases,
// reaches the API in the request's language (Accept-Language; English without one) with its
// codes and typed arguments beside it — on the task, its listing and its last event — and
// never as the phrases' JSON.
func TestReclaimedReasonInWords(t *testing.T) {
	s := webtest.NewServer(t)
	tk := webtest.ReclaimedTask(s, webtest.TaskFleet(s))
	wantCodes := []api.Phrase{
		{Code: "task_of", Args: []api.PhraseArg{{Kind: "n", N: tk.ID}, {Kind: "s", S: "alice"}}},
		{Code: "idle_for", Args: []api.PhraseArg{{Kind: "d", N: 7200}}},
		{Code: "no_answer", Args: []api.PhraseArg{{Kind: "s", S: "08:29"}, {Kind: "d", N: 1800}}},
	}
	for lang, words := range map[string]string{"en": "en", "zh-CN": "zh-CN", "": "en"} {
		want := fmt.Sprintf(reclaimedIn[words], tk.ID)
		show := s.Get(fmt.Sprintf("/api/v1/tasks/%d", tk.ID), "Accept-Language", lang)
		list := s.Get("/api/v1/tasks?state=reclaimed", "Accept-Language", lang)
		for _, w := range []string{show.Body.String(), list.Body.String()} {
			if strings.Contains(w, `"c":`) || strings.Contains(w, `\"c\":`) {
				t.Errorf("%q: the API shows the phrases' JSON: %s", lang, w)
			}
		}
		got := webtest.Decode[api.TaskDetail](t, show)
		if got.State != api.StateReclaimed || got.Reason != want {
			t.Errorf("%q: GET task = %s %q, want reclaimed %q", lang, got.State, got.Reason, want)
		}
		if diff := cmp.Diff(wantCodes, got.ReasonCodes); diff != "" {
			t.Errorf("%q: reason_codes (-want +got):\n%s", lang, diff)
		}
		if last := got.Events[len(got.Events)-1]; last.To != string(api.StateReclaimed) || last.Reason != want || len(last.ReasonCodes) != 3 {
			t.Errorf("%q: last event = %+v, want the reclaim %q with its codes", lang, last, want)
		}
		if listed := webtest.Decode[[]api.Task](t, list); len(listed) != 1 || listed[0].Reason != want {
			t.Errorf("%q: GET tasks?state=reclaimed = %+v, want the task with %q", lang, listed, want)
		}
	}
	// The store's own sentences are read the same way: the submit's event.
	got := webtest.Decode[api.TaskDetail](t, s.Get(fmt.Sprintf("/api/v1/tasks/%d", tk.ID), "Accept-Language", "zh-CN"))
	if first := got.Events[0]; first.Reason != "由 alice 提交" || !cmp.Equal(first.ReasonCodes, []api.Phrase{{Code: "submitted_by", Args: []api.PhraseArg{{Kind: "s", S: "alice"}}}}) {
		t.Errorf("first event = %+v, want submitted_by alice in Chinese", first)
	}
}
