package models

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// The validators every store method shares: field errors and their checks.

// FieldError is bad input: Field names what is wrong (a JSON path such as "samples[3].uuid").
// Handlers answer it with a 4xx and the message. Format and Args, when set, are what Msg was
// made of: pages look Format up in their language's catalog, the gettext way
// (phrase.Locale.Invalid).
type FieldError struct {
	Field  string
	Msg    string
	Format string
	Args   []any
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// Invalid is a *FieldError on field whose message is format with args, as by fmt.Sprintf.
// format is a constant, so that pages can translate it.
func Invalid(field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...), Format: format, Args: args}
}

// fieldErr is Invalid as an error.
func fieldErr(field, format string, args ...any) error { return Invalid(field, format, args...) }

// FieldErrors is every bad field of one input, in the order the input gives its fields, so
// that a form names them all at once. errors.As finds its first as a *FieldError, so callers
// that handle one field error handle it unchanged.
type FieldErrors []*FieldError

func (es FieldErrors) Error() string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "; ")
}

// Unwrap is each field error, for errors.As and errors.Is.
func (es FieldErrors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// AllFieldErrors is every field error err carries, in order: a FieldErrors' list, or the one
// *FieldError; nil when it carries none.
func AllFieldErrors(err error) []*FieldError {
	var es FieldErrors
	if errors.As(err, &es) {
		return es
	}
	var fe *FieldError
	if errors.As(err, &fe) {
		return []*FieldError{fe}
	}
	return nil
}

// Problems collects the field errors of one input, one per field (the first found), so that
// a check goes on past a bad field and names every bad one; any other error stops it.
type Problems struct{ list FieldErrors }

// Add keeps the field errors err carries, past those of fields already named, and returns
// nil; it returns err when err is another error, which should stop the check.
func (p *Problems) Add(err error) error {
	if err == nil {
		return nil
	}
	fes := AllFieldErrors(err)
	if fes == nil {
		return err
	}
	for _, fe := range fes {
		if !p.Has(fe.Field) {
			p.list = append(p.list, fe)
		}
	}
	return nil
}

// Has reports whether field is named already.
func (p *Problems) Has(field string) bool {
	for _, fe := range p.list {
		if fe.Field == field {
			return true
		}
	}
	return false
}

// Err is nil when nothing was found, the one *FieldError when one field is bad, else the
// FieldErrors.
func (p *Problems) Err() error {
	switch len(p.list) {
	case 0:
		return nil
	case 1:
		return p.list[0]
	}
	return p.list
}

// truncate shortens s to at most n bytes for use in messages.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// checkName requires a non-empty, valid UTF-8 string of at most max bytes.
func checkName(field, v string, max int) error {
	switch {
	case v == "":
		return fieldErr(field, "is required")
	case !utf8.ValidString(v):
		return fieldErr(field, "is not valid UTF-8")
	case strings.IndexByte(v, 0) >= 0:
		return fieldErr(field, "must not contain NUL") // Postgres refuses it in text
	case len(v) > max:
		return fieldErr(field, "is longer than %d bytes", max)
	}
	return nil
}

// poolNamePattern is what a new pool may be called: it goes into URLs, cloud tags and the
// exec provider's script arguments, so letters, digits, '.', '_' and '-' only, starting with a
// letter or digit.
var poolNamePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$`)

// checkNewPoolName refuses a name a new pool may not have. Pools made before the rule keep
// their names: only creating one checks it.
func checkNewPoolName(field, name string) error {
	if !poolNamePattern.MatchString(name) {
		return fieldErr(field, "a new pool's name is 1 to 63 letters, digits, '.', '_' or '-', starting with a letter or digit; got %q", name)
	}
	return nil
}
