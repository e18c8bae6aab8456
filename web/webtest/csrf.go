// Ids as the pages' paths and forms write them.

package webtest

import (
	"strconv"
)

// Itoa writes n in base 10, as ids appear in paths and forms; it is IDStr under another name.
func Itoa(n int64) string { return strconv.FormatInt(n, 10) }
