package web_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"kashi/api"
	"kashi/web"
	"kashi/web/webtest"
)

// loadOpenAPI loads and validates the served OpenAPI document.
func loadOpenAPI(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPI)
	if err != nil {
		t.Fatalf("loading api/openapi.json: %v", err)
	}
	if err := doc.Validate(t.Context()); err != nil {
		t.Fatalf("api/openapi.json is not valid OpenAPI 3: %v", err)
	}
	return doc
}

// jsonRoute reports whether a route belongs to the documented API (not a page or a file).
func jsonRoute(path string) bool {
	return strings.HasPrefix(path, "/api/") || path == "/healthz" || path == "/metrics"
}

// openAPIPath writes an echo path (/tasks/:id) as OpenAPI does (/tasks/{id}).
func openAPIPath(p string) string {
	return regexp.MustCompile(`:(\w+)`).ReplaceAllString(p, "{$1}")
}

// TestOpenAPICoversRoutes checks the document against the route table both ways: every JSON
// route is documented, and every documented operation is a route.
func TestOpenAPICoversRoutes(t *testing.T) {
	doc := loadOpenAPI(t)
	routed := map[string]bool{}
	for _, r := range web.Routes(&web.Areas{}) {
		if !jsonRoute(r.Path) {
			continue
		}
		p := openAPIPath(r.Path)
		routed[r.Method+" "+p] = true
		if item := doc.Paths.Value(p); item == nil || item.GetOperation(r.Method) == nil {
			t.Errorf("%s %s is in web/routes.go but not in api/openapi.json", r.Method, p)
		}
	}
	for p, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			if !routed[method+" "+p] {
				t.Errorf("api/openapi.json documents %s %s, which web/routes.go does not route", method, p)
			}
		}
	}
	if len(routed) < 40 {
		t.Errorf("found %d JSON routes, want the whole API", len(routed))
	}
}

// TestOpenAPIFieldsAccepted sends each documented request body, with every documented field
// set, to its handler: a field the handler does not know (it refuses unknown fields) or whose
// type differs fails the test.
func TestOpenAPIFieldsAccepted(t *testing.T) {
	doc := loadOpenAPI(t)
	s := webtest.NewServer(t)
	s.Projects("vision")
	n := s.Register(webtest.Node("n1").InPool("a100").Cards(webtest.A100Name, webtest.A100MiB, 1))
	params := strings.NewReplacer("{id}", "1", "{name}", "a100", "{project}", "vision", "{month}", "2026-03", "{version}", "1")
	for p, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.RequestBody == nil {
				continue
			}
			schema := op.RequestBody.Value.Content.Get("application/json").Schema.Value
			body := map[string]any{}
			for name, prop := range schema.Properties {
				body[name] = example(prop.Value)
			}
			b, _ := json.Marshal(body)
			var hdr []string
			switch {
			case p == api.PathRegister:
				hdr = webtest.Bearer(webtest.JoinToken)
			case strings.HasPrefix(p, "/api/v1/agent/"):
				hdr = webtest.Bearer(n.Token)
			}
			w := s.Do(webtest.Req{Method: method, Path: params.Replace(p), Body: string(b), Hdr: webtest.Pairs(hdr)})
			var e api.Error
			json.Unmarshal(w.Body.Bytes(), &e)
			if w.Code == http.StatusBadRequest && e.Field != "" && schema.Properties[e.Field] != nil {
				t.Errorf("%s %s with the documented field %q = %d %s", method, p, e.Field, w.Code, w.Body)
			}
			if w.Code == http.StatusNotFound && e.Error == "" || w.Code == http.StatusMethodNotAllowed || w.Code >= 500 {
				t.Errorf("%s %s = %d %s, want the handler to answer", method, p, w.Code, w.Body)
			}
		}
	}
}

// example is a value of a schema's type.
func example(s *openapi3.Schema) any {
	switch {
	case s.Type.Is("string") && s.Format == "date-time":
		return "2026-03-02T09:00:00Z"
	case s.Type.Is("string") && len(s.Enum) > 0:
		return s.Enum[0]
	case s.Type.Is("string"):
		return "x"
	case s.Type.Is("integer"), s.Type.Is("number"):
		return 1
	case s.Type.Is("boolean"):
		return true
	case s.Type.Is("array"):
		return []any{}
	}
	return map[string]any{}
}

// TestOpenAPIOperationsNamed: every operation has a name a generated client can use as its
// method (a unique lowerCamelCase verb and noun, not the path spelled out) and one tag the
// document declares, so clients and viewers group the API by area.
func TestOpenAPIOperationsNamed(t *testing.T) {
	doc := loadOpenAPI(t)
	declared := map[string]bool{}
	for _, tag := range doc.Tags {
		declared[tag.Name] = true
	}
	named := regexp.MustCompile(`^[a-z]+[A-Z][A-Za-z]*$|^(health|metrics)$`)
	seen := map[string]string{}
	for p, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			where := method + " " + p
			if !named.MatchString(op.OperationID) || strings.Contains(strings.ToLower(op.OperationID), "apiv1") {
				t.Errorf("%s: operationId %q is not a lowerCamelCase name", where, op.OperationID)
			}
			if other, dup := seen[op.OperationID]; dup {
				t.Errorf("%s and %s share the operationId %q", where, other, op.OperationID)
			}
			seen[op.OperationID] = where
			if len(op.Tags) != 1 || !declared[op.Tags[0]] {
				t.Errorf("%s: tags %v, want one of the document's tags", where, op.Tags)
			}
		}
	}
}

// TestOpenAPIAnswersTyped: every JSON answer an operation documents for a 2xx status has a
// typed schema (an object with its properties, an array of such, or a composition of them),
// not {} or a bare "object" that any body matches: the response check over the API tests and
// a generated client both read the answer from it.
func TestOpenAPIAnswersTyped(t *testing.T) {
	doc := loadOpenAPI(t)
	for p, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for code, r := range op.Responses.Map() {
				if !strings.HasPrefix(code, "2") {
					continue
				}
				for ct, mt := range r.Value.Content {
					if ct != "application/json" {
						continue
					}
					if why := untyped(mt.Schema); why != "" {
						t.Errorf("%s %s answers %s with %s", method, p, code, why)
					}
				}
			}
		}
	}
}

// untyped says what is missing from a JSON answer's schema, "" when it is typed.
func untyped(ref *openapi3.SchemaRef) string {
	if ref == nil || ref.Value == nil {
		return "no schema"
	}
	s := ref.Value
	for _, parts := range []openapi3.SchemaRefs{s.AllOf, s.OneOf, s.AnyOf} {
		for _, part := range parts {
			if why := untyped(part); why != "" {
				return why
			}
		}
	}
	switch {
	case len(s.AllOf)+len(s.OneOf)+len(s.AnyOf) > 0:
		return ""
	case s.Type.Is("array"):
		return untyped(s.Items)
	case s.Type.Is("object") && (len(s.Properties) > 0 || s.AdditionalProperties.Schema != nil):
		return ""
	case s.Type.Is("object"):
		return "an object of no documented properties"
	}
	return "a schema of no type"
}
