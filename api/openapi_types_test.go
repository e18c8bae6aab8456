package api

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"kashi/billing"
)

// TestResponseTypesDocumented holds each answer type against the schema of its name: every
// field it sends is a documented property, a field it always sends is required, and one
// it can send as null (a pointer, a slice or a map without omitempty) is nullable. The
// response check over the API tests (webtest) sees only what the tests send; this sees
// every field, so a null the tests never happen to send cannot slip through either.
func TestResponseTypesDocumented(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []any{Task{}, GPU{}, Queue{}, QueueEntry{}, Phrase{}, BillsIssued{}, Error{}, QuotaWait{}, Trial{}, Stage{}, Pipeline{}, RegisterResponse{}, SamplesResponse{}, AssignmentsResponse{}, Assignment{},
		Project{}, Quota{}, ReclaimOverride{}, QuotaRequest{}, QuotaChange{}, Reservation{}, User{}, Token{}, NewToken{},
		Notification{}, AuditEntry{}, Health{}, Kept{}, Alert{}, Adjustment{}, Price{}, Plan{}, DryRun{}, billing.Bill{}} {
		typ := reflect.TypeOf(v)
		ref := doc.Components.Schemas[typ.Name()]
		if typ.Name() == "QueueEntry" {
			ref = doc.Components.Schemas["Queue"].Value.Properties["tasks"].Value.Items
		}
		if ref == nil {
			t.Errorf("api.%s has no schema in openapi.json", typ.Name())
			continue
		}
		checkFields(t, typ.Name(), typ, flatten(ref.Value))
	}
}

// flatten merges an allOf's parts into one schema's properties and required list.
func flatten(s *openapi3.Schema) *openapi3.Schema {
	if len(s.AllOf) == 0 {
		return s
	}
	out := &openapi3.Schema{Properties: openapi3.Schemas{}}
	for _, part := range s.AllOf {
		p := flatten(part.Value)
		for k, v := range p.Properties {
			out.Properties[k] = v
		}
		out.Required = append(out.Required, p.Required...)
	}
	return out
}

// checkFields compares the JSON fields of the struct typ (its embedded structs' too) with s.
func checkFields(t *testing.T, name string, typ reflect.Type, s *openapi3.Schema) {
	t.Helper()
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.Anonymous {
			checkFields(t, name, f.Type, s)
			continue
		}
		tag, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == "-" || !f.IsExported() {
			continue
		}
		omit := strings.Contains(opts, "omitempty")
		p := s.Properties[tag]
		if p == nil {
			t.Errorf("%s.%s: api sends %q, openapi.json does not describe it", name, f.Name, tag)
			continue
		}
		if !omit && !slices.Contains(s.Required, tag) {
			t.Errorf("%s.%s: %q is always sent; openapi.json does not list it as required", name, f.Name, tag)
		}
		switch f.Type.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map:
			if !omit && !p.Value.Nullable && p.Ref == "" {
				t.Errorf("%s.%s: %q can be sent as null; openapi.json does not make it nullable", name, f.Name, tag)
			}
		}
	}
}
