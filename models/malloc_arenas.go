//go:build linux && cgo

package models

/*
#include <malloc.h>
#include <stdlib.h>

// kashi_cap_arenas caps glibc's malloc arenas at n unless MALLOC_ARENA_MAX is set (glibc
// reads it at start; mallopt would override it). Elsewhere (musl) there is no such cap.
static int kashi_cap_arenas(int n) {
#ifdef M_ARENA_MAX
	if (getenv("MALLOC_ARENA_MAX") == NULL) {
		return mallopt(M_ARENA_MAX, n);
	}
#endif
	return 0;
}
*/
import "C"

// mallocArenas is how many arenas glibc's malloc keeps for SQLite's C memory. glibc gives a
// thread that finds the arenas busy one of its own, up to eight per core, and keeps what each
// held: at 4,096 agents the read pool's connections, used from many threads, left about ten
// arenas holding 110 MB; with two, 43 MB, and no request slower (BENCHMARKS.md, #37).
// MALLOC_ARENA_MAX in the environment overrides it.
const mallocArenas = 2

// arenasCapped says whether the cap was set (not where MALLOC_ARENA_MAX is).
var arenasCapped = C.kashi_cap_arenas(mallocArenas) == 1
