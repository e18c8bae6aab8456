package tasks

import (
	"context"
	"strings"
	"testing"

	"kashi/phrase"
)

// The free capacity shows a spec's short-lane reserve and its use, and nothing for a spec
// without one.
func TestFreeCapacityShortReserve(t *testing.T) {
	caps := []SpecCapacity{
		{Spec: "A100-80G", Total: 24, Held: 3, Free: 13, LargestFree: 8, ShortReserve: 8, ShortReserveHeld: 3},
		{Spec: "H800-80G", Total: 8, Free: 8, LargestFree: 8},
	}
	var b strings.Builder
	if err := FreeCapacity(phrase.Locale{Lang: phrase.LangEN}, caps, false).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	if n := strings.Count(html, `data-testid="capacity-short"`); n != 1 {
		t.Fatalf("%d short-lane rows, want 1 (A100 only):\n%s", n, html)
	}
	if want := "short lane reserve: 3 of 8 cards in use"; !strings.Contains(html, want) {
		t.Errorf("free capacity lacks %q:\n%s", want, html)
	}
}
