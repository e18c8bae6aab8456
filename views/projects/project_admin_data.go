package projects

// ProjectCreateForm is the admin's form that adds a project: its values after a refused
// submit, and why.
type ProjectCreateForm struct {
	Name, Tags   string
	Field, Error string
}
