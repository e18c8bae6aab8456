package views

// ValueIf keeps a form value only on the form of the project it was typed into.
func ValueIf(f RequestForm, project, v string) string {
	if f.Project != project {
		return ""
	}
	return v
}
