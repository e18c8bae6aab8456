package webtest

import (
	"regexp"
)

var TemplateLocation = regexp.MustCompile(`^/templates/(\d+)\?notice=`)
