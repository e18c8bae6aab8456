package models

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// maxInitBytes is the most loading models may allocate. Every kashi command loads it, so
// its package variables must be cheap: it used to make its dummy password hash then (about
// 0.17 s), and then compiled a counted repeat of Unicode classes (4.4 MB, 7,151 allocations,
// 15–90 ms). Bytes, unlike time, do not depend on how busy the machine is.
const maxInitBytes = 1 << 20

// TestInitIsCheap loads models in a subprocess of this test binary with GODEBUG=inittrace
// and wants what its package variables allocate under maxInitBytes.
func TestInitIsCheap(t *testing.T) {
	if os.Getenv("KASHI_INIT_TRACE") == "1" {
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestInitIsCheap$", "-test.count=1")
	cmd.Env = append(os.Environ(), "KASHI_INIT_TRACE=1", "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
	m := regexp.MustCompile(`init kashi/models @[0-9.]+ ms, [0-9.]+ ms clock, ([0-9]+) bytes, ([0-9]+) allocs`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no init trace of models in:\n%s", out)
	}
	if n, _ := strconv.Atoi(string(m[1])); n > maxInitBytes {
		t.Errorf("loading models allocates %d bytes (%s allocations), want at most %d: %s", n, m[2], maxInitBytes, m[0])
	}
}
