package web_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"kashi/api"
	"kashi/web/webtest"
)

// TestFreeCapacityNetOfBookings: with vision's reservation holding 4 A100 cards, the queue's
// free capacity (API and page) counts, for every spec, what a dry run of another project's
// task can place: it starts with the panel's largest free cards and, where cards are booked,
// waits "booked by another project" with one more. The booked cards read the same on the
// panel and the board, in both languages. The panel used to count the booked cards as free
// (6 free A100 while a dry run of 6 answered "booked").
func TestFreeCapacityNetOfBookings(t *testing.T) {
	s := webtest.NewServer(t)
	ctx := context.Background()
	if _, err := s.Store.SavePoolConfig(ctx, "a100", webtest.A100Config(), "tester", "", webtest.T0.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	s.Projects("vision", "nlp")
	a100 := s.Register(webtest.Node("a100-01").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 8))
	h800 := s.Register(webtest.Node("h800-01").InPool("h800").Cards(webtest.H800Name, webtest.H800MiB, 8))
	for _, n := range []webtest.Registered{a100, h800} {
		var ss []api.Sample
		for _, u := range n.UUIDs {
			ss = append(ss, webtest.Sample(u, webtest.T0, 0, 0))
		}
		s.PostSamples(n.Token, ss...)
	}
	// The window opens in 10 minutes, within the pool's lead time (its boot timeout): its
	// cards are held now.
	s.Book(t, 4, webtest.T0.Add(10*time.Minute), webtest.T0.Add(9*time.Hour))
	run := s.Create(webtest.Task("train").Of("nlp").Spec("A100-80G").GPUs(2).Ready(), webtest.T0.Add(-time.Hour))
	s.Place(run, webtest.T0.Add(-time.Hour), a100.UUIDs[:2]...)

	// Read as a client does (the fields by their JSON names).
	q := webtest.Decode[struct {
		Capacity []struct {
			Spec        string `json:"spec"`
			Free        int    `json:"free"`
			Booked      int    `json:"booked"`
			LargestFree int    `json:"largest_free"`
		} `json:"capacity"`
	}](t, s.Get("/api/v1/queue"))
	if len(q.Capacity) != 2 {
		t.Fatalf("the queue's capacity has %d rows, want A100 and H800: %+v", len(q.Capacity), q.Capacity)
	}
	booked := 0
	for _, c := range q.Capacity {
		booked += c.Booked
		dry := func(gpus int) (reason, detail string) {
			body := fmt.Sprintf(`{"project":"nlp","name":"probe","gpus":%d,"spec":%q,"command":["x"],"data_ready":true}`, gpus, c.Spec)
			w := s.Post("/api/v1/tasks?dry_run=1", body)
			if w.Code != http.StatusOK {
				t.Fatalf("dry run of %d %s = %d %s", gpus, c.Spec, w.Code, w.Body)
			}
			d := webtest.Decode[struct {
				Reason string `json:"reason"`
				Detail string `json:"reason_detail"`
			}](t, w)
			return d.Reason, d.Detail
		}
		if c.Free != c.LargestFree {
			t.Fatalf("%s: %d free, %d on one node; the world has one node per spec", c.Spec, c.Free, c.LargestFree)
		}
		if reason, _ := dry(c.Free); reason != "starting" {
			t.Errorf("%s: the panel says %d free; a dry run of %d answers %q", c.Spec, c.Free, c.Free, reason)
		}
		if c.Booked > 0 {
			if reason, detail := dry(c.Free + 1); reason != "no-free-gpus" || detail != "booked" {
				t.Errorf("%s: the panel says %d free; a dry run of %d answers %q %q, want booked by another project", c.Spec, c.Free, c.Free+1, reason, detail)
			}
		}
	}
	if booked != 4 {
		t.Errorf("the panel counts %d booked cards, want vision's 4", booked)
	}

	// The queue page's panel and the board say the same, in both languages.
	for _, lang := range []struct{ accept, booked string }{{"en", "booked: kept for the reservations of vision"}, {"zh-CN", "已被预约：为 vision 的预约保留"}} {
		doc := webtest.Parse(t, s.Get("/queue", "Accept-Language", lang.accept).Body.String())
		for _, c := range q.Capacity {
			row := doc.Find(`[data-testid=capacity-row][data-spec=` + c.Spec + `]`)
			if got := strings.TrimSpace(row.Find(`[data-testid=capacity-free]`).Text()); got != strconv.Itoa(c.Free) {
				t.Errorf("%s /queue: %s free %q, the API %d", lang.accept, c.Spec, got, c.Free)
			}
			b := doc.Find(`[data-testid=capacity-booked][data-spec=` + c.Spec + `]`)
			if got := b.AttrOr("data-booked", "0"); got != strconv.Itoa(c.Booked) {
				t.Errorf("%s /queue: %s booked %q, the API %d", lang.accept, c.Spec, got, c.Booked)
			}
			if c.Booked > 0 && !strings.Contains(oneLine(b.Text()), lang.booked) {
				t.Errorf("%s /queue: the booked row reads %q, want %q", lang.accept, oneLine(b.Text()), lang.booked)
			}
		}
		board := webtest.Parse(t, s.Get("/", "Accept-Language", lang.accept).Body.String())
		if got := strings.TrimSpace(board.Find(`[data-testid=pool-summary][data-pool=a100] [data-testid=pool-booked] dd`).Text()); got != "4" {
			t.Errorf("%s board: pool a100 counts %q booked cards, the panel 4", lang.accept, got)
		}
		if n := board.Find(`[data-testid=card-booked]`).Length(); n != booked {
			t.Errorf("%s board: %d cards marked booked, the panel %d", lang.accept, n, booked)
		}
	}
}
