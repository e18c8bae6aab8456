package webtest

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"kashi/api"
)

// The served OpenAPI document's router, built once for every test of a package.
var openAPIRouter = sync.OnceValues(func() (routers.Router, error) {
	doc, err := openapi3.NewLoader().LoadFromData(api.OpenAPI)
	if err != nil {
		return nil, err
	}
	return legacy.NewRouter(doc)
})

// checkOpenAPI validates a JSON answer to a documented operation against api/openapi.json:
// every API test that goes through Server.Do checks the document too, so a field the
// handlers send and the document does not describe (a null where no null is allowed, a
// missing required field, a status it does not list) fails the test that saw it.
func checkOpenAPI(tb testing.TB, hr *http.Request, w *httptest.ResponseRecorder) {
	tb.Helper()
	if !strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") || w.Header().Get("Content-Encoding") != "" {
		return // not JSON, or compressed (the same answer uncompressed is checked where a test asks for it)
	}
	router, err := openAPIRouter()
	if err != nil {
		tb.Fatalf("api/openapi.json: %v", err)
	}
	route, params, err := router.FindRoute(hr)
	if err != nil {
		return // not a documented operation (a page, a file)
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: hr, PathParams: params, Route: route},
		Status:                 w.Code,
		Header:                 w.Header(),
		Body:                   io.NopCloser(bytes.NewReader(w.Body.Bytes())),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		tb.Errorf("%s %s answered %d, which api/openapi.json does not describe: %v\n%s", hr.Method, hr.URL.Path, w.Code, err, w.Body.Bytes())
	}
}
