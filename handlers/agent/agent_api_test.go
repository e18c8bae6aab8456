package agent_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/api"
	"kashi/models"
	"kashi/web/webtest"
)

func TestAgentSamplesBadInput(t *testing.T) {
	valid := webtest.MustJSON(t, webtest.Sample("GPU-n1-0", webtest.T0.Add(-time.Minute), 50, 1000))
	batch := func(bad string) string { return `{"samples":[` + valid + `,` + bad + `]}` }
	fields := func(kv string) string {
		return `{"uuid":"GPU-n1-1","ts":"2026-03-02T08:59:00Z","memory_used_mib":10,"util_pct":5,"temp_c":40,"power_w":80` + kv + `}`
	}
	many := func(n int) string {
		var b strings.Builder
		b.WriteString(`{"samples":[` + valid)
		for i := 1; i < n; i++ {
			fmt.Fprintf(&b, `,{"uuid":"GPU-n1-%d","ts":"%s","memory_used_mib":1,"util_pct":1}`, 1+i%3, webtest.T0.Add(-time.Duration(i)*time.Second).Format(time.RFC3339))
		}
		b.WriteString(`]}`)
		return b.String()
	}
	tests := map[string]struct {
		body   string
		token  string // "n1" (default), "n2", "none", "wrong", "replaced", "join"
		ctype  string
		status int
		field  string
	}{
		"malformed JSON":       {body: `{"samples":[` + valid + `,}`, status: 400},
		"cut short":            {body: `{"samples":[` + valid, status: 400},
		"empty body":           {body: "", status: 400},
		"an array, not object": {body: `[` + valid + `]`, status: 400},
		"a string, not object": {body: `"samples"`, status: 400},
		"two values":           {body: `{"samples":[` + valid + `]} {}`, status: 400},
		"unknown top field":    {body: `{"samples":[` + valid + `],"node":"n2"}`, status: 400, field: "node"},
		"unknown sample field": {body: batch(fields(`,"fan_pct":40`)), status: 400, field: "fan_pct"},
		"memory as a string":   {body: batch(`{"uuid":"GPU-n1-1","ts":"2026-03-02T08:59:00Z","memory_used_mib":"1000"}`), status: 400, field: "samples.memory_used_mib"},
		"util as a float":      {body: batch(fields(`,"util_pct":5.5`)), status: 400, field: "samples.util_pct"},
		"ts not a time":        {body: batch(`{"uuid":"GPU-n1-1","ts":"yesterday"}`), status: 400},
		"samples not a list":   {body: `{"samples":` + valid + `}`, status: 400, field: "samples"},
		"empty batch":          {body: `{"samples":[]}`, status: 422, field: "samples"},
		"null body":            {body: `null`, status: 422, field: "samples"},
		"unknown GPU":          {body: batch(`{"uuid":"GPU-nope","ts":"2026-03-02T08:59:00Z"}`), status: 422, field: "samples[1].uuid"},
		"GPU of another node":  {body: batch(`{"uuid":"GPU-n2-0","ts":"2026-03-02T08:59:00Z"}`), status: 422, field: "samples[1].uuid"},
		"negative memory":      {body: batch(strings.Replace(fields(""), `"memory_used_mib":10`, `"memory_used_mib":-1`, 1)), status: 422, field: "samples[1].memory_used_mib"},
		"memory over total":    {body: batch(strings.Replace(fields(""), `"memory_used_mib":10`, `"memory_used_mib":81921`, 1)), status: 422, field: "samples[1].memory_used_mib"},
		"negative util":        {body: batch(strings.Replace(fields(""), `"util_pct":5`, `"util_pct":-3`, 1)), status: 422, field: "samples[1].util_pct"},
		"util over 100":        {body: batch(strings.Replace(fields(""), `"util_pct":5`, `"util_pct":101`, 1)), status: 422, field: "samples[1].util_pct"},
		"negative power":       {body: batch(strings.Replace(fields(""), `"power_w":80`, `"power_w":-1`, 1)), status: 422, field: "samples[1].power_w"},
		"temperature too high": {body: batch(strings.Replace(fields(""), `"temp_c":40`, `"temp_c":400`, 1)), status: 422, field: "samples[1].temp_c"},
		"xid out of range":     {body: batch(fields(`,"xid":65536`)), status: 422, field: "samples[1].xid"},
		"negative xid":         {body: batch(fields(`,"xid":-1`)), status: 422, field: "samples[1].xid"},
		"process memory":       {body: batch(fields(`,"processes":[{"pid":7,"used_memory_mib":-5}]`)), status: 422, field: "samples[1].processes[0].used_memory_mib"},
		"negative pid":         {body: batch(fields(`,"processes":[{"pid":-7,"used_memory_mib":5}]`)), status: 400, field: "samples.processes.pid"},
		"util beyond int":      {body: batch(strings.Replace(fields(""), `"util_pct":5`, `"util_pct":99999999999999999999`, 1)), status: 400, field: "samples.util_pct"},
		"ts far in the future": {body: batch(`{"uuid":"GPU-n1-1","ts":"2026-03-02T09:06:00Z"}`), status: 422, field: "samples[1].ts"},
		"ts missing":           {body: batch(`{"uuid":"GPU-n1-1","util_pct":3}`), status: 422, field: "samples[1].ts"},
		"ts before 2000":       {body: batch(`{"uuid":"GPU-n1-1","ts":"1970-01-01T00:00:01Z"}`), status: 422, field: "samples[1].ts"},
		"oversize batch":       {body: many(api.MaxSamplesPerBatch + 1), status: 422, field: "samples"},
		"body over the limit":  {body: batch(`{"uuid":"` + strings.Repeat("x", api.MaxBodyBytes) + `"}`), status: 413},
		"missing token":        {body: batch(fields("")), token: "none", status: 401},
		"wrong token":          {body: batch(fields("")), token: "wrong", status: 401},
		"replaced token":       {body: batch(fields("")), token: "replaced", status: 401},
		"join token":           {body: batch(fields("")), token: "join", status: 401},
		"other node's token":   {body: batch(fields("")), token: "n2", status: 422, field: "samples[0].uuid"},
		"text/plain":           {body: batch(fields("")), ctype: "text/plain", status: 415},
		"form":                 {body: batch(fields("")), ctype: "application/x-www-form-urlencoded", status: 415},
		"serving counts down":  {body: `{"samples":[],"serving":[{"task_id":1,"ts":"2026-03-02T08:59:00Z","ttft":{"bounds":[0.1],"counts":[3,2],"sum":1}}]}`, status: 422, field: "serving[0].ttft"},
		"serving no +Inf":      {body: `{"samples":[],"serving":[{"task_id":1,"ts":"2026-03-02T08:59:00Z","e2e":{"bounds":[0.1],"counts":[3],"sum":1}}]}`, status: 422, field: "serving[0].e2e"},
		"serving negative":     {body: `{"samples":[],"serving":[{"task_id":1,"ts":"2026-03-02T08:59:00Z","requests":-1}]}`, status: 422, field: "serving[0].requests"},
		"serving server":       {body: `{"samples":[],"serving":[{"task_id":1,"ts":"2026-03-02T08:59:00Z","server":"triton"}]}`, status: 422, field: "serving[0].server"},
		"only a bad sample":    {body: `{"samples":[` + strings.Replace(fields(""), `"util_pct":5`, `"util_pct":1000`, 1) + `]}`, status: 422, field: "samples[0].util_pct"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := webtest.NewServer(t)
			n1, n2 := webtest.AgentFleet(s)
			tokens := map[string]string{"": n1.Token, "n1": n1.Token, "n2": n2.Token, "wrong": "kn_0000", "join": webtest.JoinToken,
				"replaced": n1.Token}
			current := n1.Token // n1's token now
			if tc.token == "replaced" {
				s.SetNow(webtest.T0.Add(-time.Hour))
				current = s.Reregister(webtest.Node("n1").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 4), n1.Token).Token
				s.SetNow(webtest.T0)
			}
			hdr := map[string]string{"Content-Type": "application/json"}
			if tc.ctype != "" {
				hdr["Content-Type"] = tc.ctype
			}
			if tc.token != "none" {
				hdr["Authorization"] = "Bearer " + tokens[tc.token]
			}
			w := s.Do(webtest.Req{Method: http.MethodPost, Path: api.PathSamples, Body: tc.body, Hdr: hdr})
			webtest.WantAPIError(t, "POST "+api.PathSamples, w, tc.status, tc.field)

			// Nothing of the batch is stored: no GPU moved, no node was seen, and the batch's
			// valid sample is new when it comes again.
			for _, u := range append(n1.UUIDs, n2.UUIDs...) {
				if g := s.BoardGPU(u); g.SampledAt != nil || g.UtilPct != 0 || g.MemoryUsedMiB != 0 {
					t.Errorf("after a rejected batch GPU %s = sampled %v util %d mem %d, want untouched", u, g.SampledAt, g.UtilPct, g.MemoryUsedMiB)
				}
			}
			for _, n := range []string{"n1", "n2"} {
				if seen := s.BoardGPU(webtest.UUIDOf(n, 0)).LastSeenAt; !seen.Equal(webtest.T0.Add(-time.Hour)) {
					t.Errorf("after a rejected batch node %s last seen %v, want %v", n, seen, webtest.T0.Add(-time.Hour))
				}
			}
			if n := s.SampleCount("GPU-n1-0"); n != 0 {
				t.Errorf("after a rejected batch GPU-n1-0 has %d samples, want 0", n)
			}
			tok := n1.Token
			if tc.token == "replaced" {
				tok = s.Reregister(webtest.Node("n1").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 4), current).Token
			}
			got := s.PostSamples(tok, webtest.Sample("GPU-n1-0", webtest.T0.Add(-time.Minute), 50, 1000))
			if want := (api.SamplesResponse{Accepted: 1}); got != want {
				t.Errorf("POST %s the valid sample again = %+v, want %+v", api.PathSamples, got, want)
			}
		})
	}
}

func TestAgentSamplesIdempotent(t *testing.T) {
	webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
		n1, _ := webtest.AgentFleet(s)
		at := func(d time.Duration) time.Time { return webtest.T0.Add(-d) }
		first := []api.Sample{
			webtest.Sample("GPU-n1-0", at(3*time.Minute), 10, 1000),
			webtest.Sample("GPU-n1-0", at(2*time.Minute), 20, 2000),
			webtest.Sample("GPU-n1-1", at(2*time.Minute), 95, 4000),
		}
		steps := []struct {
			name    string
			samples []api.Sample
			want    api.SamplesResponse
		}{
			{"first post", first, api.SamplesResponse{Accepted: 3}},
			{"the same batch again", first, api.SamplesResponse{Duplicates: 3}},
			{"overlapping batch", []api.Sample{first[1], webtest.Sample("GPU-n1-0", at(time.Minute), 30, 3000)}, api.SamplesResponse{Accepted: 1, Duplicates: 1}},
			// A late sample is stored but does not move the GPU's current reading back.
			{"late sample", []api.Sample{webtest.Sample("GPU-n1-0", at(10*time.Minute), 0, 0)}, api.SamplesResponse{Accepted: 1}},
			// The same (GPU, ts) twice in one batch is stored once.
			{"repeat within a batch", []api.Sample{webtest.Sample("GPU-n1-2", at(time.Minute), 1, 1), webtest.Sample("GPU-n1-2", at(time.Minute), 1, 1)}, api.SamplesResponse{Accepted: 1, Duplicates: 1}},
		}
		for _, st := range steps {
			if got := s.PostSamples(n1.Token, st.samples...); got != st.want {
				t.Errorf("POST %s %s = %+v, want %+v", api.PathSamples, st.name, got, st.want)
			}
		}
		g := s.BoardGPU("GPU-n1-0")
		if g.UtilPct != 30 || g.MemoryUsedMiB != 3000 || g.SampledAt == nil || !g.SampledAt.Equal(at(time.Minute)) {
			t.Errorf("GPU-n1-0 now = util %d mem %d at %v, want util 30 mem 3000 at %v", g.UtilPct, g.MemoryUsedMiB, g.SampledAt, at(time.Minute))
		}
		counts := map[string]int64{}
		for _, u := range []string{"GPU-n1-0", "GPU-n1-1", "GPU-n1-2", "GPU-n1-3"} {
			counts[u] = s.SampleCount(u)
		}
		want := map[string]int64{"GPU-n1-0": 4, "GPU-n1-1": 1, "GPU-n1-2": 1, "GPU-n1-3": 0}
		if diff := cmp.Diff(want, counts); diff != "" {
			t.Errorf("stored samples per GPU (-want +got):\n%s", diff)
		}
		if seen := g.LastSeenAt; !seen.Equal(webtest.T0) {
			t.Errorf("n1 last seen %v, want %v", seen, webtest.T0)
		}
	})
}

func TestAgentRegister(t *testing.T) {
	a100 := func(n int) string {
		var gs []string
		for i := range n {
			gs = append(gs, fmt.Sprintf(`{"uuid":"GPU-x-%d","index":%d,"name":"NVIDIA A100-SXM4-80GB","memory_total_mib":81920}`, i, i))
		}
		return strings.Join(gs, ",")
	}
	reg := func(host, pool, gpus string) string {
		return `{"hostname":"` + host + `","pool":"` + pool + `","gpus":[` + gpus + `]}`
	}
	h800 := `{"uuid":"GPU-h-0","index":0,"name":"NVIDIA H800","memory_total_mib":81559}`
	tests := map[string]struct {
		body      string
		token     string // "join" (default), "none", "wrong", "node"
		ctype     string
		noJoin    bool // the server has no join token
		proof     string
		status    int
		field     string
		wantNodes int
	}{
		"registers":            {body: reg("x", "a100", a100(2)), status: 200, wantNodes: 2},
		"again replaces":       {body: reg("n1", "a100", a100(4)), proof: "kn_n1", status: 200, wantNodes: 1},
		"again without proof":  {body: reg("n1", "a100", a100(4)), status: 409, field: "hostname"},
		"again, wrong proof":   {body: reg("n1", "a100", a100(4)), proof: "kn_other", status: 409, field: "hostname"},
		"no token":             {body: reg("x", "a100", a100(2)), token: "none", status: 401},
		"wrong join token":     {body: reg("x", "a100", a100(2)), token: "wrong", status: 401},
		"a node's token":       {body: reg("x", "a100", a100(2)), token: "node", status: 401},
		"registration is off":  {body: reg("x", "a100", a100(2)), noJoin: true, token: "empty", status: 401},
		"no GPUs":              {body: reg("x", "a100", ""), status: 422, field: "gpus"},
		"too many GPUs":        {body: reg("x", "a100", a100(models.MaxGPUsPerNode+1)), status: 422, field: "gpus"},
		"no hostname":          {body: reg("", "a100", a100(1)), status: 422, field: "hostname"},
		"no pool":              {body: reg("x", "", a100(1)), status: 422, field: "pool"},
		"long hostname":        {body: reg(strings.Repeat("h", 256), "a100", a100(1)), status: 422, field: "hostname"},
		"duplicate uuid":       {body: reg("x", "a100", a100(1)+","+strings.Replace(a100(1), `"index":0`, `"index":1`, 1)), status: 422, field: "gpus[1].uuid"},
		"duplicate index":      {body: reg("x", "a100", a100(1)+","+strings.Replace(a100(1), "GPU-x-0", "GPU-x-9", 1)), status: 422, field: "gpus[1].index"},
		"negative index":       {body: reg("x", "a100", strings.Replace(a100(1), `"index":0`, `"index":-1`, 1)), status: 422, field: "gpus[0].index"},
		"no memory":            {body: reg("x", "a100", strings.Replace(a100(1), "81920", "0", 1)), status: 422, field: "gpus[0].memory_total_mib"},
		"no uuid":              {body: reg("x", "a100", strings.Replace(a100(1), "GPU-x-0", "", 1)), status: 422, field: "gpus[0].uuid"},
		"mixed specs":          {body: reg("x", "a100", a100(1)+","+strings.Replace(h800, `"index":0`, `"index":1`, 1)), status: 422, field: "gpus[1].name"},
		"pool of another spec": {body: reg("x", "a100", h800), status: 422, field: "pool"},
		"unknown field":        {body: `{"hostname":"x","pool":"a100","zone":"b","gpus":[` + a100(1) + `]}`, status: 400, field: "zone"},
		"index as a string":    {body: reg("x", "a100", strings.Replace(a100(1), `"index":0`, `"index":"0"`, 1)), status: 400, field: "gpus.index"},
		"malformed":            {body: `{"hostname":`, status: 400},
		"wrong content type":   {body: reg("x", "a100", a100(2)), ctype: "text/xml", status: 415},
		"body over the limit":  {body: reg(strings.Repeat("h", api.MaxBodyBytes), "a100", a100(1)), status: 413},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			cfg := webtest.TestCfg()
			if tc.noJoin {
				cfg.JoinToken = ""
			}
			s := webtest.NewServerOn(t, webtest.NewStore(t), cfg)
			first, err := s.Store.RegisterNode(context.Background(), models.NodeRegistration{Hostname: "n1", Pool: "a100",
				GPUs: []models.GPUInfo{{UUID: "GPU-n1-0", Name: webtest.A100Name, MemoryTotalMiB: webtest.A100MiB}}}, models.HashToken("kn_n1"), webtest.T0)
			if err != nil {
				t.Fatal(err)
			}
			tokens := map[string]string{"": webtest.JoinToken, "join": webtest.JoinToken, "wrong": "kj_nope", "node": "kn_n1", "empty": ""}
			hdr := map[string]string{"Content-Type": "application/json"}
			if tc.ctype != "" {
				hdr["Content-Type"] = tc.ctype
			}
			if tc.token != "none" {
				hdr["Authorization"] = "Bearer " + tokens[tc.token]
			}
			if tc.proof != "" {
				hdr["X-Kashi-Node-Token"] = tc.proof
			}
			w := s.Do(webtest.Req{Method: http.MethodPost, Path: api.PathRegister, Body: tc.body, Hdr: hdr})
			nodes, err := s.Store.Nodes(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if tc.status == http.StatusOK {
				if w.Code != http.StatusOK {
					t.Fatalf("POST %s = %d %s, want 200", api.PathRegister, w.Code, w.Body)
				}
				resp := webtest.Decode[api.RegisterResponse](t, w)
				if !strings.HasPrefix(resp.Token, "kn_") || resp.NodeID == 0 {
					t.Errorf("POST %s = %+v, want a node id and a kn_ token", api.PathRegister, resp)
				}
				if len(nodes) != tc.wantNodes {
					t.Errorf("after POST %s the store has %d nodes, want %d", api.PathRegister, len(nodes), tc.wantNodes)
				}
				// Its cards are free for the waiting tasks now, not at the next tick.
				if n := s.Sched.Triggers(); n != 1 {
					t.Errorf("POST %s woke the scheduler %d times, want once", api.PathRegister, n)
				}
				// The new token works; a replaced one does not.
				if got := s.Get(api.PathAssignments, webtest.Bearer(resp.Token)...).Code; got != http.StatusOK {
					t.Errorf("GET %s with the new token = %d, want 200", api.PathAssignments, got)
				}
				if resp.NodeID == first.ID {
					if got := s.Get(api.PathAssignments, webtest.Bearer("kn_n1")...).Code; got != http.StatusUnauthorized {
						t.Errorf("GET %s with the replaced token = %d, want 401", api.PathAssignments, got)
					}
				}
				return
			}
			webtest.WantAPIError(t, "POST "+api.PathRegister, w, tc.status, tc.field)
			if n := s.Sched.Triggers(); n != 0 {
				t.Errorf("a rejected POST %s woke the scheduler %d times", api.PathRegister, n)
			}
			if len(nodes) != 1 || len(nodes[0].GPUs) != 1 || nodes[0].TokenHash != models.HashToken("kn_n1") {
				t.Errorf("after a rejected registration the store has %d nodes (%+v), want n1 alone, unchanged", len(nodes), nodes)
			}
		})
	}
}
