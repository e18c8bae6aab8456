package billing

import (
	"crypto/sha256"
	"strings"
	"testing"
	"time"
)

// An issued body is decoded once and then read from memory, each reading with its own row's
// issue; a body that no longer matches its checksum is refused even once decoded; the cache
// gives up the least recently read bodies past its bound.
func TestFrozenBodiesKept(t *testing.T) {
	b := Bill{ProjectID: 7, Project: "vision", Month: "2026-02", TotalFen: 12345, Lines: []Line{{TaskID: 1, AmountFen: 12345}}}
	ib, err := Freeze(b, "finance")
	if err != nil {
		t.Fatal(err)
	}
	ib.ID, ib.IssuedAt = 1, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	first, err := Frozen(ib)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := frozenBodies.get(sha256.Sum256([]byte(ib.Body))); !ok {
		t.Fatal("the decoded body is not kept")
	}
	other := ib
	other.ID, other.IssuedAt, other.IssuedBy = 2, ib.IssuedAt.Add(time.Hour), "admin"
	second, err := Frozen(other)
	if err != nil || second.TotalFen != 12345 || len(second.Lines) != 1 || second.Issued.By != "admin" || first.Issued.By != "finance" {
		t.Errorf("the body read again = %+v, %v; want its bill with the second row's issue, the first's unchanged (%+v)", second, err, first.Issued)
	}
	tampered := ib
	tampered.Body = strings.Replace(ib.Body, "12345", "99999", 1)
	if _, err := Frozen(tampered); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("a body changed after it was read = %v, want refused by its checksum", err)
	}

	c := newBodyCache(100)
	keys := [][32]byte{{1}, {2}, {3}}
	c.put(keys[0], Bill{Project: "a"}, 40)
	c.put(keys[1], Bill{Project: "b"}, 40)
	c.get(keys[0])
	c.put(keys[2], Bill{Project: "c"}, 40)
	c.put([32]byte{4}, Bill{Project: "too large"}, 101)
	var kept []string
	for _, k := range append(keys, [32]byte{4}) {
		if b, ok := c.get(k); ok {
			kept = append(kept, b.Project)
		}
	}
	if got := strings.Join(kept, " "); got != "a c" || c.bytes != 80 {
		t.Errorf("kept %q in %d bytes, want a and c (b least recently read, the large one never) in 80", got, c.bytes)
	}
}
