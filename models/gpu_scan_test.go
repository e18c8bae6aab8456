package models

import (
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"gorm.io/gorm/schema"
)

// TestGPUColumnsCoverGPU keeps the hand-written GPU scan whole: every column of GPU is in
// gpuColumns, in the order gpuDest scans the fields. (A column missing here was read as its
// zero value by the sample commit, and unmanaged use resent from a spool counted again.)
func TestGPUColumnsCoverGPU(t *testing.T) {
	sch, err := schema.Parse(&GPU{}, &sync.Map{}, schema.NamingStrategy{})
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, f := range sch.Fields {
		if f.DBName != "" {
			want = append(want, "gpus."+f.DBName)
		}
	}
	var got []string
	for _, c := range strings.Split(gpuColumns, ",") {
		got = append(got, strings.TrimSpace(c))
	}
	if !slices.Equal(got, want) {
		t.Errorf("gpuColumns = %v\nwant GPU's columns %v", got, want)
	}
	var g GPU
	v := reflect.ValueOf(&g).Elem()
	dest := gpuDest(&g)
	if len(dest) != v.NumField() {
		t.Fatalf("gpuDest has %d destinations, GPU %d fields", len(dest), v.NumField())
	}
	for i, d := range dest {
		if d != v.Field(i).Addr().Interface() {
			t.Errorf("gpuDest[%d] is not &GPU.%s", i, v.Type().Field(i).Name)
		}
	}
}
