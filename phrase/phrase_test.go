package phrase

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestEncodeDecode(t *testing.T) {
	l := Of(New("size_at_max", N(6), N(6)), New("boot_timeout", S("sim-1"), Dur(15*time.Minute), Dur(1100*time.Millisecond)),
		New("memory_high", Pct(85.6), Pct(80), Dur(5*time.Minute)))
	got, ok := Decode(l.Encode())
	if !ok {
		t.Fatalf("Decode(%s) failed", l.Encode())
	}
	if diff := cmp.Diff(l, got); diff != "" {
		t.Errorf("Decode(Encode(l)) (-want +got):\n%s", diff)
	}
	if want := "size_at_max(6, 6); boot_timeout(sim-1, 15m0s, 1s); memory_high(86%, 80%, 5m0s)"; l.String() != want {
		t.Errorf("String = %q, want %q", l.String(), want)
	}
	for _, s := range []string{"", "size 6 = max 6", "[1,2]", `[{"c":`} {
		if l, ok := Decode(s); ok {
			t.Errorf("Decode(%q) = %v, want not a list", s, l)
		}
	}
	base := Of(New("a"))
	x, y := base.And(New("x")), base.And(New("y"))
	if x[1].Code != "x" || y[1].Code != "y" {
		t.Errorf("And shares its backing array: %v %v", x, y)
	}
}
