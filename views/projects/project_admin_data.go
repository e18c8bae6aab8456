package projects

import "kashi/views"

// ProjectCreateForm is the admin's form that adds a project: its values after a refused
// submit, and why.
type ProjectCreateForm struct {
	Name, Tags string
	Problems   views.Problems
}

// ProjectCreateFields are the add form's fields in its order.
var ProjectCreateFields = []string{"name", "tags"}
