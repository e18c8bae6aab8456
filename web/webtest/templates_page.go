// Where the template pages send a browser after a save.

package webtest

import (
	"regexp"
)

// TemplateLocation matches the Location of a redirect to a saved template's page, with a
// notice; its group is the template's id.
var TemplateLocation = regexp.MustCompile(`^/templates/(\d+)\?notice=`)
