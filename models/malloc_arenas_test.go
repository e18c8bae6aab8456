//go:build linux && cgo

package models

import (
	"os"
	"testing"
)

// TestMallocArenasCapped: glibc took the cap on its arenas when the package loaded, unless
// the environment sets its own.
func TestMallocArenasCapped(t *testing.T) {
	if os.Getenv("MALLOC_ARENA_MAX") != "" {
		t.Skip("MALLOC_ARENA_MAX is set")
	}
	if !arenasCapped {
		t.Fatal("mallopt(M_ARENA_MAX) was refused")
	}
}
