package billing

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

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
func Frozen(ib models.IssuedBill) (Bill, error) {
	sum := sha256.Sum256([]byte(ib.Body))
	if hex.EncodeToString(sum[:]) != ib.SHA256 {
		return Bill{}, fmt.Errorf("billing: issued bill %d: checksum does not match its body", ib.ID)
	}
	var b Bill
	if err := json.Unmarshal([]byte(ib.Body), &b); err != nil {
		return Bill{}, fmt.Errorf("billing: issued bill %d: %w", ib.ID, err)
	}
	if b.Format > FrozenFormat {
		return Bill{}, fmt.Errorf("billing: issued bill %d: body of format %d, newer than this Kashi reads (%d)", ib.ID, b.Format, FrozenFormat)
	}
	b.Issued = &Issued{At: ib.IssuedAt.UTC(), By: ib.IssuedBy, SHA256: ib.SHA256}
	return b, nil
}
