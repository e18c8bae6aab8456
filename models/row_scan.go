package models

import (
	"database/sql"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"

	"gorm.io/gorm/schema"
)

// rowScan reads a model's rows into its structs itself, by the columns GORM maps the model
// to. The reads of whole sets that every scheduler pass, board snapshot and fleet read make
// (every GPU, every active task, every open allocation) went through GORM's Scan, whose
// reflection cost more than the query: per row it made each field anew and grew the slice
// by reflection, 44 % of what a scheduler pass allocated for its active tasks alone
// (BenchmarkLoopPass). The columns come from GORM's own schema of the model, so a field
// added to the model is read with no list to keep (TestRowScanReadsWhatGORMReads).
type rowScan[T any] struct {
	// columns are the model's columns, each named with its table, in the order of index.
	columns string
	index   [][]int // each column's field in T
}

// newRowScan maps T's columns in table.
func newRowScan[T any](table string) rowScan[T] {
	sch, err := schema.Parse(new(T), &sync.Map{}, schema.NamingStrategy{})
	if err != nil {
		panic(fmt.Sprintf("models: schema of %T: %v", *new(T), err))
	}
	var s rowScan[T]
	var cols []string
	for _, f := range sch.Fields {
		if f.DBName == "" || !f.Readable {
			continue
		}
		cols = append(cols, table+`."`+f.DBName+`"`) // quoted: some are key words (deferrable)
		s.index = append(s.index, f.StructField.Index)
	}
	s.columns = strings.Join(cols, ", ")
	return s
}

// dest is where a row of columns, then of extra, scans into: *p's fields, then extra.
func (s rowScan[T]) dest(p *T, extra ...any) []any {
	v := reflect.ValueOf(p).Elem()
	out := make([]any, 0, len(s.index)+len(extra))
	for _, i := range s.index {
		out = append(out, v.FieldByIndex(i).Addr().Interface())
	}
	return append(out, extra...)
}

// scanRows scans every row of rows into a slice of the room hint gives (none when nil),
// through the destinations dest gives in one R: each row is scanned into that R, then
// copied. (A field that is a pointer gets a new value from each row that has one, so no two
// rows share it.)
func scanRows[R any](rows *sql.Rows, hint *sizeHint, dest func(*R) []any) ([]R, error) {
	defer rows.Close()
	var r R
	d := dest(&r)
	out := make([]R, 0, hint.room())
	for rows.Next() {
		if err := rows.Scan(d...); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	hint.saw(len(out))
	return out, rows.Err()
}

// sizeHint remembers how many rows the latest read of a set found, for the next read's
// room: a slice of 32,768 board rows grown by doubling was twice their size in copies.
type sizeHint struct{ n atomic.Int64 }

// room is the latest count and a sixteenth more (nil: none).
func (h *sizeHint) room() int {
	if h == nil {
		return 0
	}
	n := int(h.n.Load())
	return n + n/16
}

// saw records a read's count (nil: nothing).
func (h *sizeHint) saw(n int) {
	if h != nil {
		h.n.Store(int64(n))
	}
}

// sizeHints are the Store's hints, one per set it reads whole.
type sizeHints struct{ active, open, fleetGPUs sizeHint }

// Scans of the models read whole.
var (
	gpuScan        = newRowScan[GPU]("gpus")
	taskScan       = newRowScan[Task]("tasks")
	allocationScan = newRowScan[Allocation]("allocations")
	nodeScan       = newRowScan[Node]("nodes")
)
