package bills_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"kashi/billing"
	"kashi/models"
	"kashi/phrase"
	"kashi/serving"
	"kashi/views"
	"kashi/web/webtest"
)

// randomFebruary adds to the bill world's February random tasks on its four cards, one
// after another on each card from the 14th: batch tasks with readings at a random
// utilization or none, some reclaimed or failed, and inference services (a replica each)
// that served in random 5-minute buckets of their span; and on the 13th a task rerun after
// its first node was lost, at a low utilization; then rolls up.
func randomFebruary(t *testing.T, w webtest.BillWorld, r *rand.Rand) {
	t.Helper()
	ctx := context.Background()
	w.RunRerun(t, webtest.Task("rerun").Of([]string{"vision", "nlp"}[r.IntN(2)]).Ready(), webtest.Feb(13, r.Float64()*10),
		time.Duration(10+r.IntN(100))*time.Minute, 2*time.Hour, time.Duration(30+r.IntN(200))*time.Minute, 20)
	utils := []int{0, 5, 20, 50, 90}
	n := 0
	for card := range 4 {
		at := webtest.Feb(14, r.Float64()*24)
		for range 1 + r.IntN(3) {
			n++
			d := time.Duration(30+r.IntN(600)) * time.Minute
			project := []string{"vision", "nlp"}[r.IntN(2)]
			b := webtest.Task(fmt.Sprintf("t%d", n)).Of(project).Ready()
			var util map[int]int
			if r.IntN(4) != 0 {
				util = map[int]int{card: utils[r.IntN(len(utils))]}
			}
			service := r.IntN(3) == 0
			if service {
				b.Nt.Kind, b.Nt.Service = models.TaskKindService, models.ServiceSpec{Model: "qwen2.5-7b", MetricsPort: 8000}
			}
			var stop func(int64)
			switch k := r.IntN(4); {
			case service || k == 0:
				stop = func(id int64) {
					if err := w.Store.CancelTask(ctx, id, "tester", at.Add(d-time.Minute)); err != nil {
						t.Fatal(err)
					}
				}
			case k == 1:
				stop = func(id int64) {
					if err := w.Store.RequestStop(ctx, id, models.TaskReclaimed, "idle 2h", at.Add(d-time.Minute)); err != nil {
						t.Fatal(err)
					}
				}
			}
			tk := w.RunStopped(t, b, at, d, 0, util, stop, card)
			if service {
				for m := time.Minute; m < d; m += 5 * time.Minute {
					if r.IntN(2) == 0 {
						continue
					}
					ts := at.Add(m)
					rep := models.ServiceReport{TaskID: tk.ID, TS: ts, Served: serving.Snapshot{Server: serving.VLLM, Model: "qwen2.5-7b",
						Requests: float64(r.IntN(3) * 100)}}
					if err := w.Store.AddServiceReports(ctx, w.Node.ID, []models.ServiceReport{rep}, ts); err != nil {
						t.Fatal(err)
					}
				}
			}
			at = at.Add(d + time.Duration(r.IntN(180))*time.Minute)
		}
	}
	if err := w.Store.RollUp(ctx, webtest.T0, 365*24*time.Hour); err != nil {
		t.Fatal(err)
	}
}

// pageHours reads a page's hours figure ("12.34") as hundredths of an hour.
func pageHours(t *testing.T, s string) int64 {
	t.Helper()
	s = strings.Fields(s + " ")[0]
	h, f, ok := strings.Cut(s, ".")
	a, err1 := strconv.ParseInt(h, 10, 64)
	b, err2 := strconv.ParseInt(f, 10, 64)
	if !ok || err1 != nil || err2 != nil || len(f) != 2 {
		t.Fatalf("hours %q", s)
	}
	return a*100 + b
}

// TestBillPageConservation: over random Februaries (batch tasks at any utilization, some
// interrupted, one rerun; services serving in random buckets), each bill page shows per line and per
// project held = effective + each waste class (to its two decimals: the parts add up to
// the whole within their rounding), and shows the figures the bill's JSON holds; the bills
// page's rows and total show them too. billing's TestConservation holds the same of the
// JSON, CSV and XLSX to the second.
func TestBillPageConservation(t *testing.T) {
	seeds := 4
	if testing.Short() {
		seeds = 1
	}
	var seen billing.Breakdown // every class the Februaries held, that the pages were tried on
	for seed := range seeds {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			w := webtest.NewBillWorld(t)
			randomFebruary(t, w, rand.New(rand.NewPCG(uint64(seed), 11)))
			var total [3]int64
			for _, project := range []string{"nlp", "vision"} {
				checkBillPage(t, w, project)
				var b billing.Bill
				if err := json.Unmarshal(w.As("finance", "/api/v1/bills/"+project+"/"+webtest.BillMonth).Body, &b); err != nil {
					t.Fatal(err)
				}
				total[0], total[1], total[2] = total[0]+b.NominalS, total[1]+b.EffectiveS, total[2]+b.Held.Idle
				seen.Add(b.Held)
				row := pageDoc(t, w, "/bills?month="+webtest.BillMonth).Find(`[data-testid=bill-row][data-project="` + project + `"] td`)
				got := []string{row.Eq(0).Text(), row.Eq(1).Text(), row.Eq(2).Text()}
				want := []string{phrase.Hours(b.NominalS), phrase.Hours(b.EffectiveS), phrase.Hours(b.Held.Idle)}
				if strings.Join(got, " ") != strings.Join(want, " ") {
					t.Errorf("bills page row %s = %v, the bill's JSON %v", project, got, want)
				}
			}
			tot := pageDoc(t, w, "/bills?month="+webtest.BillMonth).Find(`[data-testid=bills-total] td`)
			if got, want := []string{tot.Eq(0).Text(), tot.Eq(1).Text(), tot.Eq(2).Text()},
				[]string{phrase.Hours(total[0]), phrase.Hours(total[1]), phrase.Hours(total[2])}; strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("bills page total = %v, the bills' %v", got, want)
			}
		})
	}
	if seen.Active == 0 || seen.Serving == 0 || seen.LowUtil == 0 || seen.Idle == 0 || seen.NoData == 0 || seen.Rerun == 0 {
		t.Errorf("the random Februaries held %+v; want some of every class", seen)
	}
}

func pageDoc(t *testing.T, w webtest.BillWorld, path string) *goquery.Document {
	t.Helper()
	d, err := goquery.NewDocumentFromReader(bytes.NewReader(w.As("finance", path).Body))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// checkBillPage checks one project's February bill page against the identity and its JSON.
func checkBillPage(t *testing.T, w webtest.BillWorld, project string) {
	t.Helper()
	var b billing.Bill
	if err := json.Unmarshal(w.As("finance", "/api/v1/bills/"+project+"/"+webtest.BillMonth).Body, &b); err != nil {
		t.Fatal(err)
	}
	d := pageDoc(t, w, "/bills/"+project+"/"+webtest.BillMonth)
	// adds checks that the shown parts add up to the shown whole within their rounding: each
	// part is off by at most half a hundredth, the whole too.
	adds := func(what string, whole int64, parts ...int64) {
		t.Helper()
		var sum int64
		for _, p := range parts {
			sum += p
		}
		if diff := sum - whole; diff > int64(len(parts)+1)/2 || -diff > int64(len(parts)+1)/2 {
			t.Errorf("%s %s: parts %v add to %d hundredths of an hour, the whole is %d", project, what, parts, sum, whole)
		}
	}
	lines := d.Find(`[data-testid=bill-line]`)
	if lines.Length() != len(b.Lines) {
		t.Fatalf("%s: page has %d lines, JSON %d", project, lines.Length(), len(b.Lines))
	}
	lines.Each(func(i int, s *goquery.Selection) {
		l := b.Lines[i]
		cell := func(id string) string {
			return strings.TrimSpace(s.Find(`[data-testid=` + id + `]`).Contents().First().Text())
		}
		got := []string{cell("line-nominal"), cell("line-effective"), cell("line-idle"), cell("line-other")}
		want := []string{phrase.Hours(l.NominalS), phrase.Hours(l.EffectiveS), phrase.Hours(l.Idle), phrase.Hours(l.LowUtil + l.Setup + l.NoData + l.Rerun)}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s line %d (task %d): page %v, JSON %v", project, i, l.TaskID, got, want)
		}
		var parts []int64
		s.Find(`[data-testid=line-class]`).Each(func(_ int, c *goquery.Selection) {
			f := strings.Fields(c.Text())
			parts = append(parts, pageHours(t, f[len(f)-1]))
		})
		adds(fmt.Sprintf("line %d: other", i), pageHours(t, got[3]), parts...)
		adds(fmt.Sprintf("line %d: held", i), pageHours(t, got[0]), pageHours(t, got[1]), pageHours(t, got[2]), pageHours(t, got[3]))
	})
	classes := map[string]int64{}
	d.Find(`[data-testid=held-classes] dd`).Each(func(_ int, s *goquery.Selection) {
		classes[s.AttrOr("data-class", "")] = pageHours(t, s.Text())
	})
	nominal, effective := pageHours(t, d.Find(`[data-testid=bill-nominal]`).Text()), pageHours(t, d.Find(`[data-testid=bill-effective]`).Text())
	if nominal != pageHours(t, phrase.Hours(b.NominalS)) || effective != pageHours(t, phrase.Hours(b.EffectiveS)) {
		t.Errorf("%s: page nominal %d, effective %d hundredths; JSON %d, %d s", project, nominal, effective, b.NominalS, b.EffectiveS)
	}
	adds("effective", effective, classes["active"], classes["serving"])
	adds("held", nominal, classes["active"], classes["serving"], classes["low_util"], classes["idle"], classes["setup"], classes["no_data"],
		classes["rerun"])
	if b.Held.Serving != 0 && classes["serving"] != pageHours(t, phrase.Hours(b.Held.Serving)) {
		t.Errorf("%s: page serving %d hundredths, JSON %d s", project, classes["serving"], b.Held.Serving)
	}
	if cost := d.Find(`[data-testid=bill-rerun-cost]`).Text(); b.Held.Rerun != 0 && (classes["rerun"] != pageHours(t, phrase.Hours(b.Held.Rerun)) ||
		b.RerunFen == 0 || cost != views.Yuan(b.RerunFen)) {
		t.Errorf("%s: page rerun %d hundredths costing %q; JSON %d s costing %d fen", project, classes["rerun"], cost, b.Held.Rerun, b.RerunFen)
	}
}
