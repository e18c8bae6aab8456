package models

import (
	"strings"
	"unicode/utf8"

	"gorm.io/gorm"
)

// matchable reports whether a value from a request can equal stored text. What is stored is
// valid UTF-8 without NUL (every write checks it, and Postgres refuses anything else, even as
// a parameter), so such a value matches nothing on either database.
func matchable(v string) bool { return utf8.ValidString(v) && strings.IndexByte(v, 0) < 0 }

// textIs is the condition col = v for text a caller sent: a lookup by a name that cannot be
// stored finds nothing (gorm.ErrRecordNotFound, answered as ErrNotFound) instead of sending
// Postgres a parameter it refuses, an internal error on one database and none on the other.
func textIs(col, v string) func(*gorm.DB) *gorm.DB {
	return func(db *gorm.DB) *gorm.DB {
		if !matchable(v) {
			return db.Where("1 = 0")
		}
		return db.Where(col+" = ?", v)
	}
}
