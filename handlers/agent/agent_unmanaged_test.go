package agent_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/google/go-cmp/cmp"

	"kashi/api"
	"kashi/billing"
	"kashi/models"
	"kashi/phrase"
	"kashi/web/webtest"
)

func TestUnmanagedGPUUse(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		nodes := webtest.TaskFleet(s)
		tok, uuid := nodes["n1"].Token, "GPU-n1-1"
		jupyter := api.Process{PID: 300, UsedMemoryMiB: 2048, Unmanaged: true, User: "bob", Command: "python -m jupyter"}
		withProcs := func(ts time.Time, ps ...api.Process) api.Sample {
			sm := webtest.Sample(uuid, ts, 30, 4096)
			sm.Processes = ps
			return sm
		}

		s.PostSamples(tok, withProcs(webtest.T0.Add(-20*time.Second), jupyter))
		g := webtest.GPUByUUID(t, s, uuid)
		if g.UnmanagedMiB != 2048 || !strings.Contains(g.UnmanagedWho, "bob python -m jupyter (pid 300") {
			t.Errorf("GET /api/v1/gpus %s unmanaged = %d %q, want 2048 MiB by bob's jupyter", uuid, g.UnmanagedMiB, g.UnmanagedWho)
		}
		doc, err := goquery.NewDocumentFromReader(s.Get("/").Body)
		if err != nil {
			t.Fatal(err)
		}
		if n := doc.Find(`[data-testid="label-unmanaged"]`).Length(); n != 1 {
			t.Errorf("board shows %d unmanaged labels, want 1", n)
		}
		open := func() int {
			alerts, err := s.Store.Alerts(t.Context(), models.AlertFilter{OpenOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, a := range alerts {
				if a.Kind == models.AlertUnmanaged {
					n++
				}
			}
			return n
		}
		if n := open(); n != 1 {
			t.Errorf("%d open unmanaged alerts, want 1", n)
		}

		// A resent older batch changes nothing; a newer one without the process clears it.
		s.PostSamples(tok, withProcs(webtest.T0.Add(-40*time.Second)))
		if g := webtest.GPUByUUID(t, s, uuid); g.UnmanagedMiB != 2048 {
			t.Errorf("after an old batch unmanaged = %d, want 2048 kept", g.UnmanagedMiB)
		}
		s.PostSamples(tok, withProcs(webtest.T0.Add(-10*time.Second), api.Process{PID: 400, UsedMemoryMiB: 1000, TaskID: 5}))
		if g := webtest.GPUByUUID(t, s, uuid); g.UnmanagedMiB != 0 {
			t.Errorf("after the process left unmanaged = %d, want 0", g.UnmanagedMiB)
		}
		if n := open(); n != 0 {
			t.Errorf("%d open unmanaged alerts after the use ended, want 0", n)
		}

		// Use after the node registered (at t0), on a card no task held, is the node's
		// unmanaged use in the month: 20 s.
		s.SetNow(webtest.T0.Add(time.Minute))
		s.PostSamples(tok, withProcs(webtest.T0.Add(30*time.Second), jupyter))
		s.PostSamples(tok, withProcs(webtest.T0.Add(50*time.Second)))
		month := webtest.T0.Format("2006-01") // 2 March, in UTC and in the billing zone
		var body struct {
			PoolIdle []billing.PoolIdle `json:"pool_idle"`
		}
		if err := json.Unmarshal(s.Get("/api/v1/bills/"+month).Body.Bytes(), &body); err != nil {
			t.Fatal(err)
		}
		var got []billing.NodeUnmanaged
		for _, p := range body.PoolIdle {
			got = append(got, p.UnmanagedNodes...)
		}
		if diff := cmp.Diff([]billing.NodeUnmanaged{{Node: "n1", UnmanagedS: 20}}, got); diff != "" {
			t.Errorf("GET /api/v1/bills/%s unmanaged use by node (-want +got):\n%s", month, diff)
		}

		bad := withProcs(webtest.T0, api.Process{PID: 1, Command: strings.Repeat("x", 257)})
		w := s.Post(api.PathSamples, webtest.MustJSON(t, api.SamplesRequest{Samples: []api.Sample{bad}}), webtest.Bearer(tok)...)
		webtest.WantAPIError(t, "POST a too long command", w, http.StatusUnprocessableEntity, "samples[0].processes[0].command")
	})
}

// An XID error in a sample (dcgm-exporter's DCGM_FI_DEV_XID_ERRORS, read by the agent) raises
// an alert naming the card and the number, in both languages; the same card's next XID
// counts on it.
func TestGPUXIDRaisesAlert(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		nodes := webtest.TaskFleet(s)
		tok, uuid := nodes["n1"].Token, "GPU-n1-1"
		xid := func(ts time.Time, n int) api.Sample {
			sm := webtest.Sample(uuid, ts, 30, 4096)
			sm.XID = n
			return sm
		}
		s.PostSamples(tok, xid(webtest.T0.Add(-30*time.Second), 0))
		s.PostSamples(tok, xid(webtest.T0.Add(-20*time.Second), 79))
		s.PostSamples(tok, xid(webtest.T0.Add(-10*time.Second), 48))
		alerts, err := s.Store.Alerts(t.Context(), models.AlertFilter{OpenOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		var got []models.Alert
		for _, a := range alerts {
			if a.Kind == models.AlertGPUXID {
				got = append(got, a)
			}
		}
		if len(got) != 1 || got[0].Count != 2 || got[0].Subject != "gpu "+uuid || got[0].NodeID != nodes["n1"].ID {
			t.Fatalf("open XID alerts = %+v, want one on %s counted twice", got, uuid)
		}
		params := got[0].AlertParams()
		for lang, want := range map[string]string{phrase.LangEN: "reported XID error 48", phrase.LangZH: "报告 XID 错误 48"} {
			l := phrase.Locale{Lang: lang}
			if s := l.AlertSentence(got[0].Code, params, got[0].Message); !strings.Contains(s, want) || !strings.Contains(s, uuid) {
				t.Errorf("%s sentence = %q, want it to name %s and say %q", lang, s, uuid, want)
			}
		}
	})
}
