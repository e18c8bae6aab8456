package tasks

import (
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kashi/api"
	"kashi/models"
)

// jsonFields lists the JSON names (with their options) and kinds of typ's fields in order,
// through pointers to structs.
func jsonFields(typ reflect.Type) []string {
	var out []string
	for i := range typ.NumField() {
		f := typ.Field(i)
		out = append(out, f.Tag.Get("json")+" "+f.Type.Kind().String())
		if f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.Struct {
			for _, inner := range jsonFields(f.Type.Elem()) {
				out = append(out, f.Tag.Get("json")+"."+inner)
			}
		}
	}
	return out
}

// TestTemplateBodyForms checks that a template body writes the same JSON in the API's form
// and in the store's, so that sameJSON carries every field across.
func TestTemplateBodyForms(t *testing.T) {
	wire, stored := jsonFields(reflect.TypeFor[api.TemplateBody]()), jsonFields(reflect.TypeFor[models.TemplateBody]())
	if diff := cmp.Diff(wire, stored); diff != "" {
		t.Errorf("template body fields (-api +models):\n%s", diff)
	}
}
