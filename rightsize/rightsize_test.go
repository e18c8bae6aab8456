package rightsize

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/models"
)

// reading is one sample of a card: utilization (%) and memory used (MiB).
type reading struct {
	util int
	mem  int64
}

// series makes a card's readings every 10 s for runtime seconds: setup (data loading: low
// utilization, memory growing) for setup seconds, then training around util % with noise
// and memory around mem MiB, a checkpoint dip every 30 minutes.
func series(r *rand.Rand, runtime, setup int64, util int, mem int64) []reading {
	var out []reading
	for t := int64(0); t < runtime; t += 10 {
		switch {
		case t < setup:
			out = append(out, reading{util: r.IntN(3), mem: mem * t / max(1, setup) / 2})
		case t%1800 < 60: // checkpoint: the card waits on the disk
			out = append(out, reading{util: r.IntN(10), mem: mem})
		default:
			u := util - 5 + r.IntN(11)
			out = append(out, reading{util: min(100, max(0, u)), mem: mem - r.Int64N(512)})
		}
	}
	return out
}

// rollUp is the card's 5-minute rollups of the readings, as the store makes them.
func rollUp(rs []reading) []models.GPURollup {
	var out []models.GPURollup
	for i, rd := range rs {
		b := int64(i) * 10 / models.Rollup5m * models.Rollup5m
		if len(out) == 0 || out[len(out)-1].Bucket != b {
			out = append(out, models.GPURollup{Resolution: models.Rollup5m, Bucket: b})
		}
		ro := &out[len(out)-1]
		ro.N++
		ro.UtilSum += int64(rd.util)
		ro.UtilMax = max(ro.UtilMax, rd.util)
		ro.MemSum += rd.mem
		ro.MemMax = max(ro.MemMax, rd.mem)
	}
	return out
}

// run measures cards made by each.
func run(spec string, runtime int64, cards ...[]reading) Run {
	r := Run{Spec: spec, RuntimeS: runtime}
	for _, c := range cards {
		r.Cards = append(r.Cards, Measure(rollUp(c)))
	}
	return r
}

var options = []Option{
	{Spec: "A100-80G", MemMiB: 81920, RateFen: 1500},
	{Spec: "RTX4090-24G", MemMiB: 24564, RateFen: 420},
	{Spec: "L40S-48G", MemMiB: 46068, RateFen: 800},
	{Spec: "T4-16G", MemMiB: 15360}, // no price: never advised
}

func TestAdvise(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	const hours4 = 4 * 3600
	cards := func(n int, f func() []reading) [][]reading {
		var out [][]reading
		for range n {
			out = append(out, f())
		}
		return out
	}
	tests := map[string]struct {
		run  Run
		want Advice
	}{
		// A big card barely used: 17 GiB of 80 GiB on 8 × A100 — a 4090 (24 GiB) holds 17 GiB
		// plus a fifth, at 28 % of the cost; the cards were busy, so it may run longer.
		"fits a smaller card": {
			run: run("A100-80G", hours4, cards(8, func() []reading { return series(r, hours4, 900, 85, 17*1024) })...),
			want: Advice{Kind: KindSmaller, Spec: "RTX4090-24G", GPUs: 8, FromSpec: "A100-80G", FromGPUs: 8,
				PeakMemMiB: 17 * 1024, CardMemMiB: 81920, CostPct: 28, SavingFenPerHour: 8 * (1500 - 420), Slower: true},
		},
		// 60 GiB on every card, all of them busy: nothing cheaper holds it.
		"needs all its cards": {
			run: run("A100-80G", hours4, cards(8, func() []reading { return series(r, hours4, 600, 92, 60*1024) })...),
			want: Advice{Kind: KindRight, Spec: "A100-80G", GPUs: 8, FromSpec: "A100-80G", FromGPUs: 8,
				PeakMemMiB: 60 * 1024, CardMemMiB: 81920, CostPct: 100},
		},
		// 4 of 8 cards never went above 5 %: ask for 4; 70 GiB needs the A100 still.
		"idle cards": {
			run: run("A100-80G", hours4, append(
				cards(4, func() []reading { return series(r, hours4, 600, 80, 70*1024) }),
				cards(4, func() []reading { return series(r, hours4, hours4, 0, 600) })...)...),
			want: Advice{Kind: KindFewer, Spec: "A100-80G", GPUs: 4, FromSpec: "A100-80G", FromGPUs: 8, IdleCards: 4,
				PeakMemMiB: 70 * 1024, CardMemMiB: 81920, CostPct: 50, SavingFenPerHour: 4 * 1500},
		},
		// Two busy cards of 30 GiB out of four: two L40S (48 GiB) hold them, not a 4090;
		// utilization around 40 % does not make a slower card a worry.
		"fewer and smaller": {
			run: run("A100-80G", hours4, append(
				cards(2, func() []reading { return series(r, hours4, 600, 40, 30*1024) }),
				cards(2, func() []reading { return series(r, hours4, hours4, 0, 0) })...)...),
			want: Advice{Kind: KindSmallerFewer, Spec: "L40S-48G", GPUs: 2, FromSpec: "A100-80G", FromGPUs: 4, IdleCards: 2,
				PeakMemMiB: 30 * 1024, CardMemMiB: 81920, CostPct: 26, SavingFenPerHour: 4*1500 - 2*800},
		},
		// The one card never went above 5 %: the run did not use it. Neither "the count is
		// right" nor a spec sized to no memory at all; what it saves is all it cost.
		"its one card unused": {
			run: run("RTX4090-24G", hours4, series(r, hours4, hours4, 0, 400)),
			want: Advice{Kind: KindUnused, FromSpec: "RTX4090-24G", FromGPUs: 1, IdleCards: 1, CardMemMiB: 24564,
				SavingFenPerHour: 420},
		},
		// Both cards idle: not "ask for 1 × the cheapest spec".
		"every card unused": {
			run: run("A100-80G", hours4, series(r, hours4, hours4, 2, 600), series(r, hours4, hours4, 0, 600)),
			want: Advice{Kind: KindUnused, FromSpec: "A100-80G", FromGPUs: 2, IdleCards: 2, CardMemMiB: 81920,
				SavingFenPerHour: 2 * 1500},
		},
		// Unused on a spec without a price: nothing to say it saves.
		"unused and unpriced": {
			run:  run("T4-16G", hours4, series(r, hours4, hours4, 1, 0)),
			want: Advice{Kind: KindUnused, FromSpec: "T4-16G", FromGPUs: 1, IdleCards: 1, CardMemMiB: 15360},
		},
		"too short to tell": {
			run:  run("A100-80G", 5*60, series(r, 5*60, 0, 90, 1024)),
			want: Advice{},
		},
		// Readings for a third of the run: too little evidence.
		"too few readings": {
			run: func() Run {
				x := run("A100-80G", hours4, series(r, hours4/3, 0, 30, 1024))
				return x
			}(),
			want: Advice{},
		},
		// A spec without a price: only the count can be advised.
		"unpriced spec": {
			run: run("T4-16G", hours4, series(r, hours4, 600, 50, 2048), series(r, hours4, hours4, 1, 0)),
			want: Advice{Kind: KindFewer, Spec: "T4-16G", GPUs: 1, FromSpec: "T4-16G", FromGPUs: 2, IdleCards: 1,
				PeakMemMiB: 2048, CardMemMiB: 15360, CostPct: 100},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := Advise(tc.run, options)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Advise (-want +got):\n%s", diff)
			}
		})
	}
}
