// The bills tests' world: February's tasks on priced A100s, and a user per role to read them.

package webtest

import (
	"context"
	"net/http"
	"testing"
	"time"

	"kashi/api"
	"kashi/models"
)

// The bill world's month, spec, prices and busiest task. February 2026 in the billing time
// zone (Asia/Shanghai) has ended by T0 (2 March); March has begun and April has not.
const (
	// BillMonth is the month the bill world's tasks ran in.
	BillMonth = "2026-02"
	// A100Spec is the spec of the bill world's cards.
	A100Spec  = "A100-80G"
	a100RateF = 1500 // fen per card-hour
	// OverflowF is the A100 price's overflow rate, in fen per card-hour beyond the quota.
	OverflowF = 2500
	// BillTaskID is the name of vision's two-card task, one card busy and one idle.
	BillTaskID = "llama/sft-r1"
)

// BillWorld is a server with projects vision and nlp, a node of four A100s, three tasks that
// ran in February (week 2026-W07) with readings, the default A100 price, and one user per
// role with an API token: finance, member (of vision), lead (of nlp) and viewer.
type BillWorld struct {
	*Server
	Tokens map[string]string // role name → API token
	Node   models.Node       // a100-01, registered on 1 February
}

// Feb is midnight UTC of a day of February 2026 plus h hours.
func Feb(day int, h float64) time.Time {
	return time.Date(2026, 2, day, 0, 0, 0, 0, time.UTC).Add(time.Duration(h * float64(time.Hour)))
}

// NewBillWorld builds a BillWorld, with the A100 price, over a fresh server.
func NewBillWorld(t testing.TB) BillWorld {
	t.Helper()
	return NewBillWorldPriced(t, true)
}

// NewBillWorldPriced is NewBillWorld, without the A100 price unless priced.
func NewBillWorldPriced(t testing.TB, priced bool) BillWorld {
	t.Helper()
	return NewBillWorldOn(t, NewServer(t), priced)
}

// NewBillWorldOn builds a BillWorld over s, without the A100 price unless priced.
func NewBillWorldOn(t testing.TB, s *Server, priced bool) BillWorld {
	t.Helper()
	ctx := context.Background()
	s.Projects("vision", "nlp")
	w := BillWorld{Server: s, Tokens: map[string]string{}}
	r := Node("a100-01").InPool("a100").Cards(A100Name, A100MiB, 4).R
	req := models.NodeRegistration{Hostname: r.Hostname, Pool: r.Pool}
	for _, g := range r.GPUs {
		req.GPUs = append(req.GPUs, models.GPUInfo(g))
	}
	n, err := s.Store.RegisterNode(ctx, req, "hash-a100-01", Feb(1, 0))
	if err != nil {
		t.Fatal(err)
	}
	w.Node = n
	if priced {
		if err := s.Store.SetPrice(ctx, models.Price{Spec: A100Spec, FromMonth: "2026-01", RateFen: a100RateF, OverflowRateFen: OverflowF}, Feb(1, 0)); err != nil {
			t.Fatal(err)
		}
	}
	// vision: llama/sft-r1 on two cards for 3 h, the first busy and the second idle, 120
	// units of output; eval-3 on one card for 1.5 h without readings. nlp: bert on one card
	// for 2 h, idle.
	w.Run(t, Task(BillTaskID).Of("vision").GPUs(2).Ready(), Feb(10, 2), 3*time.Hour, 120, map[int]int{0: 80, 1: 0}, 0, 1)
	w.Run(t, Task("eval-3").Of("vision").Ready(), Feb(12, 0), 90*time.Minute, 0, nil, 3)
	w.Run(t, Task("bert").Of("nlp").Ready(), Feb(11, 0), 2*time.Hour, 0, map[int]int{2: 0}, 2)
	if err := s.Store.RollUp(ctx, T0, 365*24*time.Hour); err != nil {
		t.Fatal(err)
	}
	for _, u := range []struct{ name, role, project, prole string }{
		{"finance", models.RoleFinance, "", ""}, {"member", models.RoleUser, "vision", models.ProjectRoleMember},
		{"lead", models.RoleUser, "nlp", models.ProjectRoleLead}, {"viewer", models.RoleViewer, "", ""},
	} {
		user, err := s.Store.CreateUser(ctx, u.name, "pw-"+u.name, u.role, T0)
		if err != nil {
			t.Fatal(err)
		}
		if u.project != "" {
			p, _ := s.Store.ProjectByName(ctx, u.project)
			if err := s.Store.SetMember(ctx, p.ID, user.ID, u.prole); err != nil {
				t.Fatal(err)
			}
		}
		tok, _, err := s.Store.CreateAPIToken(ctx, user.ID, "test", models.ScopeWrite, T0)
		if err != nil {
			t.Fatal(err)
		}
		w.Tokens[u.name] = tok
	}
	return w
}

// Run creates the task at start-1m, places it on the given card indexes at start, feeds a
// reading a minute of util[index] for the cards listed, and ends it after d with units of
// output.
func (w BillWorld) Run(t testing.TB, b *TaskB, start time.Time, d time.Duration, units int64, util map[int]int, cards ...int) models.Task {
	t.Helper()
	return w.RunStopped(t, b, start, d, units, util, nil, cards...)
}

// RunStopped is Run with stop called with the task's id before its process exits: a stop
// asked (reclaimed, released, timed out) gives the state it ends in.
func (w BillWorld) RunStopped(t testing.TB, b *TaskB, start time.Time, d time.Duration, units int64, util map[int]int,
	stop func(id int64), cards ...int) models.Task {
	t.Helper()
	ctx := context.Background()
	tk := w.Create(b, start.Add(-time.Minute))
	var uuids []string
	for _, i := range cards {
		uuids = append(uuids, UUIDOf("a100-01", i))
	}
	w.Place(tk, start, uuids...)
	var ss []api.Sample
	for m := time.Duration(0); m < d; m += time.Minute {
		for i, u := range util {
			ss = append(ss, Sample(UUIDOf("a100-01", i), start.Add(m), u, 1024))
		}
	}
	if len(ss) > 0 {
		if _, err := w.Store.IngestSamples(ctx, w.Node.ID, Readings(ss), start.Add(d)); err != nil {
			t.Fatal(err)
		}
	}
	if stop != nil {
		stop(tk.ID)
	}
	end := start.Add(d)
	if err := w.Store.ReportTaskStatus(ctx, w.Node.ID, tk.ID, models.TaskReport{State: models.ReportExited, TS: end, OutputUnits: units}, end); err != nil {
		t.Fatal(err)
	}
	return tk
}

// As sends a GET with role's token.
func (w BillWorld) As(role, path string) *HTTPResult {
	w.Tb.Helper()
	r := w.Get(path, Bearer(w.Tokens[role])...)
	return &HTTPResult{Code: r.Code, Body: r.Body.Bytes(), Header: r.Header()}
}

// PostAs sends a JSON POST with role's token.
func (w BillWorld) PostAs(role, path, body string) *HTTPResult {
	w.Tb.Helper()
	r := w.Post(path, body, Bearer(w.Tokens[role])...)
	return &HTTPResult{Code: r.Code, Body: r.Body.Bytes(), Header: r.Header()}
}

// HTTPResult is a recorded answer: its status, body and header.
type HTTPResult struct {
	Code   int
	Body   []byte
	Header http.Header
}

// BillViews is one project's bill of a month as each surface gives it: the page
// (/bills/<project>/<month>) and the API's JSON, CSV and XLSX.
type BillViews struct {
	Page, JSON, CSV, XLSX []byte
}

// BillViews reads a project's bill of a month from every surface with the admin's token,
// failing the test unless each answers 200.
func (s *Server) BillViews(project, month string) BillViews {
	s.Tb.Helper()
	get := func(path string) []byte {
		s.Tb.Helper()
		w := s.Get(path)
		if w.Code != http.StatusOK {
			s.Tb.Fatalf("GET %s = %d %s, want 200", path, w.Code, w.Body)
		}
		return w.Body.Bytes()
	}
	api := "/api/v1/bills/" + project + "/" + month
	return BillViews{Page: get("/bills/" + project + "/" + month), JSON: get(api), CSV: get(api + "?format=csv"),
		XLSX: get(api + "?format=xlsx")}
}
