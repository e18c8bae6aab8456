package models

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// TestInitHashes measures, in one subprocess of this test binary, what loading models
// costs (GODEBUG=inittrace) and what one password hash at the login cost costs, and wants
// the load under a quarter of the hash: every kashi command loads models, and it used to
// make its dummy hash then (about 0.17 s). The two are timed in the same process at about
// the same moment, so a loaded machine slows both; a few tries are taken and the best
// counts, so one stall in the load does not fail it. The old load was a whole hash.
func TestInitHashes(t *testing.T) {
	if os.Getenv("KASHI_INIT_HASH") == "1" {
		start := time.Now()
		if _, err := bcrypt.GenerateFromPassword([]byte("x"), bcryptCost); err != nil {
			t.Fatal(err)
		}
		os.Stdout.WriteString("hash " + strconv.FormatFloat(time.Since(start).Seconds()*1000, 'f', 3, 64) + " ms\n")
		return
	}
	initRE := regexp.MustCompile(`init kashi/models @[0-9.]+ ms, ([0-9.]+) ms clock`)
	hashRE := regexp.MustCompile(`hash ([0-9.]+) ms`)
	var tries []string
	for range 3 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestInitHashes$", "-test.count=1")
		cmd.Env = append(os.Environ(), "KASHI_INIT_HASH=1", "GODEBUG=inittrace=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", cmd, err, out)
		}
		im, hm := initRE.FindSubmatch(out), hashRE.FindSubmatch(out)
		if im == nil || hm == nil {
			t.Fatalf("no init trace of models or no hash time in:\n%s", out)
		}
		load, _ := strconv.ParseFloat(string(im[1]), 64)
		hash, _ := strconv.ParseFloat(string(hm[1]), 64)
		if load < hash/4 {
			return
		}
		tries = append(tries, string(im[0])+"; "+string(hm[0]))
	}
	t.Errorf("loading models costs more than a quarter of a password hash, in every try: %q", tries)
}
