package views

import (
	"strconv"

	"github.com/a-h/templ"
)

func ServiceURL(id int64) templ.SafeURL {
	return templ.SafeURL("/tasks/" + strconv.FormatInt(id, 10))
}
