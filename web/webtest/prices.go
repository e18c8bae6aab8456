// HTML forms posted as a role of the bill world, for the prices page's tests.

package webtest

import (
	"net/http"
	"net/url"
)

// FormAs posts an HTML form with role's token ("" is the admin).
func (w BillWorld) FormAs(role, path string, values url.Values) *http.Response {
	w.Tb.Helper()
	if role == "" {
		return w.Form(path, values)
	}
	return w.Form(path, values, Bearer(w.Tokens[role])...)
}
