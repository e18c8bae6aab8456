package api

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestPoolBootDocumented: the OpenAPI document's PoolBoot schema has every field of
// PoolBoot, by its JSON name, and no other, and a pool shows it under "boot".
func TestPoolBootDocumented(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(OpenAPI, &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	var fields []string
	typ := reflect.TypeFor[PoolBoot]()
	for i := range typ.NumField() {
		fields = append(fields, strings.Split(typ.Field(i).Tag.Get("json"), ",")[0])
	}
	var documented []string
	for name := range doc.Components.Schemas["PoolBoot"].Properties {
		documented = append(documented, name)
	}
	slices.Sort(fields)
	slices.Sort(documented)
	if diff := cmp.Diff(fields, documented); diff != "" {
		t.Errorf("PoolBoot's fields vs openapi.json's PoolBoot properties (-api +openapi.json):\n%s", diff)
	}
	if ref := string(doc.Components.Schemas["Pool"].Properties["boot"]); !strings.Contains(ref, "#/components/schemas/PoolBoot") {
		t.Errorf("openapi.json's Pool.boot = %s, want the PoolBoot schema", ref)
	}
}
