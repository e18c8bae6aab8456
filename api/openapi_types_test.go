package api

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"kashi/billing"
	"kashi/models"
	"kashi/rightsize"
)

// TestResponseTypesDocumented holds each answer type against the schema of its name: every
// field it sends is a documented property, a field it always sends is required, and one
// it can send as null (a pointer, a slice or a map without omitempty) is nullable. The
// response check over the API tests (webtest) sees only what the tests send; this sees
// every field, so a null the tests never happen to send cannot slip through either.
func TestResponseTypesDocumented(t *testing.T) {
	doc := loadDoc(t)
	for _, v := range []any{Task{}, GPU{}, Queue{}, QueueEntry{}, Phrase{}, BillsIssued{}, Error{}, QuotaWait{}, Trial{}, TrialList{}, Stage{}, Pipeline{}, RegisterResponse{}, SamplesResponse{}, AssignmentsResponse{}, Assignment{},
		Project{}, Quota{}, ReclaimOverride{}, QuotaRequest{}, QuotaChange{}, Reservation{}, User{}, Token{}, NewToken{}, Me{}, UnixAccount{}, JoinToken{},
		Notification{}, AuditEntry{}, Health{}, Kept{}, Alert{}, Adjustment{}, Price{}, Plan{}, DryRun{}, BillingSettings{},
		TaskDetail{}, TaskEvent{}, TaskAttempt{}, Template{}, TemplateVersion{}, FieldChange{}, Schedule{}, ScheduleRun{},
		Pool{}, PoolBoot{}, PoolNode{}, PoolMachine{}, PoolSkip{}, ScaleEvent{}, Service{}, ServicePoint{}, MonthBills{},
		billing.Bill{}, billing.PoolIdle{}, rightsize.Advice{}} {
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
	// The bill's parts are named for what they are in the document, not as billing's types.
	for name, v := range map[string]any{"BillLine": billing.Line{}, "BillItem": billing.Item{}, "BillIdleLine": billing.IdleLine{}} {
		ref := doc.Components.Schemas[name]
		if ref == nil {
			t.Errorf("%s has no schema in openapi.json", name)
			continue
		}
		checkFields(t, name, reflect.TypeOf(v), ref.Value)
	}
}

// TestRequestTypesDocumented holds each request body type against the schema of its name:
// every field it reads is a documented property and every property is a field it reads.
// Required is what a client must send, which the Go type cannot say, so it is not checked.
func TestRequestTypesDocumented(t *testing.T) {
	doc := loadDoc(t)
	for _, v := range []any{TaskRequest{}, TemplateRequest{}, TemplateRollback{}, ScheduleRequest{}, NewProject{}, ProjectArchive{},
		ProjectTags{}, Membership{}, RequestDecision{}, QuotaSetting{}, NewQuotaRequest{}, NewAdjustment{}, NewUser{}, TokenRequest{},
		UnixAccountRequest{}, JoinTokenRequest{}, RegisterRequest{}, SamplesRequest{}, TaskStatusRequest{}, BillingSettings{},
		models.PoolConfig{}} {
		typ := reflect.TypeOf(v)
		ref := doc.Components.Schemas[typ.Name()]
		if ref == nil {
			t.Errorf("api.%s has no schema in openapi.json", typ.Name())
			continue
		}
		s := flatten(ref.Value)
		fields := jsonFields(typ)
		for name := range s.Properties {
			if !slices.Contains(fields, name) {
				t.Errorf("%s: openapi.json documents %q, api does not read it", typ.Name(), name)
			}
		}
		for _, name := range fields {
			if s.Properties[name] == nil {
				t.Errorf("%s: api reads %q, openapi.json does not describe it", typ.Name(), name)
			}
		}
	}
}

// TestRequestBodiesNamed: every JSON request body and answer in openapi.json is a named
// schema (a $ref, or an array or oneOf of them), so each is held by a Go type above; the
// document itself (GET /api/v1/openapi.json) is the only inline one.
func TestRequestBodiesNamed(t *testing.T) {
	doc := loadDoc(t)
	named := func(s *openapi3.SchemaRef) bool {
		switch {
		case s.Ref != "":
			return true
		case s.Value.Items != nil:
			return s.Value.Items.Ref != ""
		case len(s.Value.OneOf) > 0:
			return !slices.ContainsFunc(s.Value.OneOf, func(o *openapi3.SchemaRef) bool { return o.Ref == "" })
		}
		return false
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.RequestBody != nil {
				if mt := op.RequestBody.Value.Content.Get("application/json"); mt != nil && !named(mt.Schema) {
					t.Errorf("%s %s: the request body is an inline schema; name it in components/schemas", method, path)
				}
			}
			for code, r := range op.Responses.Map() {
				if r.Value == nil || path == "/api/v1/openapi.json" {
					continue
				}
				if mt := r.Value.Content.Get("application/json"); mt != nil && !named(mt.Schema) {
					t.Errorf("%s %s %s: the answer is an inline schema; name it in components/schemas", method, path, code)
				}
			}
		}
	}
}

// loadDoc is openapi.json, loaded.
func loadDoc(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(OpenAPI)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// jsonFields is the JSON names of typ's fields, its embedded structs' too.
func jsonFields(typ reflect.Type) []string {
	var out []string
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.Anonymous {
			out = append(out, jsonFields(f.Type)...)
			continue
		}
		if tag, _, _ := strings.Cut(f.Tag.Get("json"), ","); tag != "-" && f.IsExported() {
			out = append(out, tag)
		}
	}
	return out
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
