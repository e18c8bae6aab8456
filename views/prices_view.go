package views

// Invalid is the aria-invalid value of a form field: "true" when the refused field is name.
func Invalid(refused, name string) string {
	if refused == name {
		return "true"
	}
	return "false"
}
