package replay

import (
	"os"
	"sync"
	"testing"
)

// The openb trace: testdata/traces/alibaba-openb-2wk.csv (see its SOURCE.md; Weng et al.,
// USENIX ATC '23, CC BY 4.0).
const (
	openbPath     = "../testdata/traces/alibaba-openb-2wk.csv"
	openbJobs     = 2491
	openbGPUHours = "8085.460556"
	openbMaxGPUs  = 39
)

var openbOnce struct {
	sync.Once
	tr  *Trace
	err error
}

// openb parses the trace once per test binary; tests must not change it.
func openb(t testing.TB) *Trace {
	t.Helper()
	openbOnce.Do(func() {
		f, err := os.Open(openbPath)
		if err != nil {
			openbOnce.err = err
			return
		}
		defer f.Close()
		openbOnce.tr, openbOnce.err = Read(f, ReadOptions{})
	})
	if openbOnce.err != nil {
		t.Fatal(openbOnce.err)
	}
	return openbOnce.tr
}

// run replays tr and fails the test on error.
func run(t testing.TB, tr *Trace, opt Options) *Result {
	t.Helper()
	res, err := Run(tr, opt)
	if err != nil {
		t.Fatalf("Run(%s) = %v", opt.Policy, err)
	}
	return res
}
