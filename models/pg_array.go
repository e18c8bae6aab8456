package models

import (
	"database/sql/driver"
	"strconv"
	"time"
)

// Postgres arrays as single statement parameters. The sample commit writes thousands of
// rows a second; on Postgres it sends each column as one array and lets unnest make the
// rows, so a group is a statement of a few parameters that Postgres plans once, rather than
// a VALUES list of thousands that it parses and plans on every commit. The arrays travel in
// Postgres's text form, used as CAST(? AS bigint[]) or CAST(? AS timestamptz[]).

// pgInts is a bigint[] parameter.
type pgInts []int64

// Value writes {1,2,3}.
func (a pgInts) Value() (driver.Value, error) {
	b := make([]byte, 0, 2+len(a)*8)
	b = append(b, '{')
	for i, v := range a {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, v, 10)
	}
	return string(append(b, '}')), nil
}

// pgTimes is a timestamptz[] parameter; a nil element is NULL.
type pgTimes []*time.Time

// Value writes {"2026-03-02T09:00:00.5Z",NULL}, to the microsecond as Postgres keeps it (cut,
// not rounded, as the driver's own encoding does).
func (a pgTimes) Value() (driver.Value, error) {
	b := make([]byte, 0, 2+len(a)*30)
	b = append(b, '{')
	for i, t := range a {
		if i > 0 {
			b = append(b, ',')
		}
		if t == nil {
			b = append(b, "NULL"...)
			continue
		}
		b = append(b, '"')
		b = t.UTC().Truncate(time.Microsecond).AppendFormat(b, time.RFC3339Nano)
		b = append(b, '"')
	}
	return string(append(b, '}')), nil
}
