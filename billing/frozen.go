package billing

import (
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"

	"kashi/models"
)

// Freeze encodes a computed bill as the body an issued bill stores, with its SHA-256, ready
// for Store.IssueBill. The body is the bill's JSON without the Issued part, of format
// FrozenFormat: everything its page and downloads show, its project's name and tags too, as
// they are now.
func Freeze(b Bill, by string) (models.IssuedBill, error) {
	b.Issued, b.Format = nil, FrozenFormat
	body, err := json.Marshal(b)
	if err != nil {
		return models.IssuedBill{}, fmt.Errorf("billing: freeze %s of %q: %w", b.Month, b.Project, err)
	}
	sum := sha256.Sum256(body)
	return models.IssuedBill{ProjectID: b.ProjectID, Month: b.Month, TimeZone: b.TimeZone,
		PeriodStart: b.PeriodStart, PeriodEnd: b.PeriodEnd, NominalS: b.NominalS, EffectiveS: b.EffectiveS,
		TotalFen: b.TotalFen, Body: string(body), SHA256: hex.EncodeToString(sum[:]), IssuedBy: by,
		AdjustmentIDs: b.AdjustmentIDs}, nil
}

// Frozen decodes an issued bill after checking its checksum, and sets Issued. Writers
// render it the same way every time, so a re-download gives the same bytes. Bodies of every
// format up to FrozenFormat are read; one of a later format (of a newer Kashi) is refused.
// The bill's slices may be shared with other readers of the same body (frozenBodies): read
// them, never change them.
func Frozen(ib models.IssuedBill) (Bill, error) {
	sum := sha256.Sum256([]byte(ib.Body))
	if hex.EncodeToString(sum[:]) != ib.SHA256 {
		return Bill{}, fmt.Errorf("billing: issued bill %d: checksum does not match its body", ib.ID)
	}
	b, ok := frozenBodies.get(sum)
	if !ok {
		if err := json.Unmarshal([]byte(ib.Body), &b); err != nil {
			return Bill{}, fmt.Errorf("billing: issued bill %d: %w", ib.ID, err)
		}
		if b.Format > FrozenFormat {
			return Bill{}, fmt.Errorf("billing: issued bill %d: body of format %d, newer than this Kashi reads (%d)", ib.ID, b.Format, FrozenFormat)
		}
		frozenBodies.put(sum, b, len(ib.Body))
	}
	b.Issued = &Issued{At: ib.IssuedAt.UTC(), By: ib.IssuedBy, SHA256: ib.SHA256}
	return b, nil
}

// frozenBodies keeps the bills decoded from issued bodies, by the bodies' SHA-256, up to 64 MiB
// of bodies, the least recently read given up first. A body never changes once issued (and
// Frozen checks it against its checksum at every read), while the bills page reads every
// project's bill of the month at each view: the demo's 1.5 MB bodies took 35 ms of CPU to
// decode, four a view.
var frozenBodies = newBodyCache(64 << 20)

// bodyCache is an LRU of bills decoded from bodies, bounded by the bodies' bytes.
type bodyCache struct {
	mu         sync.Mutex
	bytes, max int
	byKey      map[[32]byte]*list.Element
	recent     *list.List // of *bodyEntry, the most recently read first
}

type bodyEntry struct {
	key  [32]byte
	bill Bill
	size int
}

func newBodyCache(max int) *bodyCache {
	return &bodyCache{max: max, byKey: map[[32]byte]*list.Element{}, recent: list.New()}
}

// get is the bill decoded from the body of checksum key, if kept.
func (c *bodyCache) get(key [32]byte) (Bill, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[key]
	if !ok {
		return Bill{}, false
	}
	c.recent.MoveToFront(e)
	return e.Value.(*bodyEntry).bill, true
}

// put keeps b, decoded from a body of size bytes with checksum key, and gives up the least
// recently read bills past the bound; a body larger than the bound is not kept.
func (c *bodyCache) put(key [32]byte, b Bill, size int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[key]; ok || size > c.max {
		return
	}
	b.Issued = nil
	c.byKey[key] = c.recent.PushFront(&bodyEntry{key: key, bill: b, size: size})
	c.bytes += size
	for c.bytes > c.max {
		old := c.recent.Remove(c.recent.Back()).(*bodyEntry)
		delete(c.byKey, old.key)
		c.bytes -= old.size
	}
}
