package serving

import (
	"bytes"
	"os"
	"testing"
)

// BenchmarkParse reads each testdata page, as the scraper would every window per replica.
func BenchmarkParse(b *testing.B) {
	for _, name := range []string{"vllm-a-1.txt", "sglang.txt", "tgi.txt"} {
		page, err := os.ReadFile("../testdata/serving/" + name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(page)))
			for b.Loop() {
				if _, err := Parse(bytes.NewReader(page)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
		})
	}
}
