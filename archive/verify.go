package archive

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// maxBill bounds an archived bill read back.
const maxBill = 256 << 20

// Check is Verify's finding: how many issued bills were read back, and the keys of those
// missing from the store or whose SHA-256 differs from the one recorded at issue.
type Check struct {
	Checked   int
	Missing   []string
	Different []string
}

// OK reports whether every issued bill was found with its checksum.
func (c Check) OK() bool { return len(c.Missing) == 0 && len(c.Different) == 0 }

// Verify reads back the JSON of every issued bill and compares its SHA-256 with the one the
// database recorded at issue.
func Verify(ctx context.Context, db DB, store *Store) (Check, error) {
	var c Check
	names, err := db.ProjectNames(ctx)
	if err != nil {
		return c, err
	}
	for after := int64(0); ; {
		ibs, err := db.IssuedBillsAfter(ctx, after, pageSize)
		if err != nil {
			return c, err
		}
		if len(ibs) == 0 {
			return c, nil
		}
		for _, ib := range ibs {
			key := BillKey(names[ib.ProjectID], ib, "json")
			c.Checked++
			body, err := store.Get(ctx, key, maxBill)
			switch {
			case isMissing(err):
				c.Missing = append(c.Missing, key)
			case err != nil:
				return c, err
			default:
				if sum := sha256.Sum256(body); hex.EncodeToString(sum[:]) != ib.SHA256 {
					c.Different = append(c.Different, key)
				}
			}
			after = ib.ID
		}
	}
}

// String is the check in a line.
func (c Check) String() string {
	return fmt.Sprintf("%d issued bills checked: %d missing, %d different", c.Checked, len(c.Missing), len(c.Different))
}
