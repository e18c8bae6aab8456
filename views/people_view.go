package views

// ValueIf keeps a form value only on the form of the project it was typed into.
func ValueIf(f RequestForm, project, v string) string {
	if f.Project != project {
		return ""
	}
	return v
}

// ProblemsIf is the request form's problems on project's card: only the form they came from
// shows them.
func ProblemsIf(f RequestForm, project string) Problems {
	if f.Project != project {
		return nil
	}
	return f.Problems
}
