package replay

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkHugeTrace reads a 1 GiB trace written to a temporary file (streamed, never held
// in memory): one usable job per 1,000 rows, the rest rows a real trace would skip. The
// heap must stay bounded while it is read. Skipped with -short (CI's benchmark smoke run).
func BenchmarkHugeTrace(b *testing.B) {
	if testing.Short() {
		b.Skip("writes a 1 GiB file")
	}
	path := filepath.Join(b.TempDir(), "huge.csv")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString("job_id,submit_ts,gpus,duration_s,group\n")
	var size int64
	var rows int
	bad := []string{",0,600,LS\n", ",x,1,600,LS\n", ",3,1,-5,BE\n", ",\"4,1,600\n"}
	var line []byte
	for size < 1<<30 {
		line = append(line[:0], 'j')
		line = strconv.AppendInt(line, int64(rows), 10)
		if rows%1000 == 0 {
			line = append(line, ',')
			line = strconv.AppendInt(line, int64(rows), 10)
			line = append(line, ",1,600,LS\n"...)
		} else {
			line = append(line, bad[rows%len(bad)]...)
		}
		n, _ := w.Write(line)
		size += int64(n)
		rows++
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	b.SetBytes(size)
	for b.Loop() {
		runtime.GC()
		var peak atomic.Uint64
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			var ms runtime.MemStats
			for {
				runtime.ReadMemStats(&ms)
				peak.Store(max(peak.Load(), ms.HeapAlloc))
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		}()
		in, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		tr, err := Read(in, ReadOptions{})
		in.Close()
		close(stop)
		<-done
		if err != nil {
			b.Fatal(err)
		}
		skipped := 0
		for _, n := range tr.Skipped {
			skipped += n
		}
		if len(tr.Jobs)+skipped != rows || len(tr.Jobs) != (rows+999)/1000 {
			b.Fatalf("Read: %d jobs, %d skipped of %d rows", len(tr.Jobs), skipped, rows)
		}
		if p := peak.Load(); p > 64<<20 {
			b.Fatalf("heap reached %d MiB reading 1 GiB", p>>20)
		}
		b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
		b.ReportMetric(float64(rows), "rows")
	}
}
