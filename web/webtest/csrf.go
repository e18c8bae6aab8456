package webtest

import (
	"strconv"
)

func Itoa(n int64) string { return strconv.FormatInt(n, 10) }
