package replay

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
)

// synthetic writes a trace of n jobs: arrivals every 45 s on average, 1–8 GPUs (small
// ones more often), runtimes of 1 minute to about 10 hours (mean about an hour); on 32
// nodes × 8 GPUs that is a load near 90 %.
func synthetic(n int) []byte {
	rng := rand.New(rand.NewPCG(13, 1))
	sizes := []int{1, 1, 1, 2, 4, 8}
	var b bytes.Buffer
	b.WriteString("job_id,submit_ts,gpus,duration_s,group\n")
	t := int64(0)
	for i := range n {
		t += int64(rng.ExpFloat64() * 45)
		dur := 60 + int64(rng.ExpFloat64()*3540)
		fmt.Fprintf(&b, "job-%d,%d,%d,%d,g%d\n", i, t, sizes[rng.IntN(len(sizes))], min(dur, 36000), rng.IntN(4))
	}
	return b.Bytes()
}

func BenchmarkReplayOpenb(b *testing.B) {
	data, err := os.ReadFile(openbPath)
	if err != nil {
		b.Fatal(err)
	}
	for _, pol := range []string{PolicyKashi, PolicyFIFO} {
		b.Run(pol, func(b *testing.B) {
			for b.Loop() {
				tr, err := Read(bytes.NewReader(data), ReadOptions{})
				if err != nil {
					b.Fatal(err)
				}
				run(b, tr, Options{Policy: pol, Fleet: FixedFleet(4, 8)})
			}
		})
	}
	b.Run("kashi-elastic", func(b *testing.B) {
		for b.Loop() {
			tr, err := Read(bytes.NewReader(data), ReadOptions{})
			if err != nil {
				b.Fatal(err)
			}
			run(b, tr, Options{Policy: PolicyKashi, Fleet: elasticFleet()})
		}
	})
}

// BenchmarkReplaySynthetic100k replays 100,000 synthetic jobs; with -short (CI's smoke run of
// every benchmark) 10,000, since the full run takes a minute or more there.
func BenchmarkReplaySynthetic100k(b *testing.B) {
	jobs := 100_000
	if testing.Short() {
		jobs = 10_000
	}
	data := synthetic(jobs)
	for _, pol := range []string{PolicyKashi, PolicyFIFO} {
		b.Run(pol, func(b *testing.B) {
			var res *Result
			for b.Loop() {
				tr, err := Read(bytes.NewReader(data), ReadOptions{})
				if err != nil {
					b.Fatal(err)
				}
				res = run(b, tr, Options{Policy: pol, Fleet: FixedFleet(32, 8)})
			}
			b.ReportMetric(res.WaitS.Mean, "mean-wait-s")
			b.ReportMetric(float64(res.Jobs), "jobs")
		})
	}
}
