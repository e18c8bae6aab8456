package views

import (
	"slices"
	"strings"

	"github.com/a-h/templ"
)

// Problem is one bad field of a refused form: Field as the store names it (the API's wire
// name, "" for the form as a whole) and Text, what is wrong in the page's language, led by
// the label the person sees.
type Problem struct{ Field, Text string }

// Problems are every problem of a refused form, the first bad field of the form first.
type Problems []Problem

// InFormOrder is ps ordered as the form lays out its fields: by the place of each field (or of
// the field it is part of, "size_classes" for "size_classes[2].price_fen") in order; the form
// as a whole and fields order lacks go last, in the order they came.
func (ps Problems) InFormOrder(order []string) Problems {
	place := func(p Problem) int {
		root := p.Field
		if i := strings.IndexAny(root, "[."); i > 0 {
			root = root[:i]
		}
		for _, f := range []string{p.Field, root} {
			if i := slices.Index(order, f); i >= 0 {
				return i
			}
		}
		return len(order)
	}
	out := slices.Clone(ps)
	slices.SortStableFunc(out, func(a, b Problem) int { return place(a) - place(b) })
	return out
}

// Attrs are the attributes of an input the store names fields (one or more: the form's
// "overflow_rate" and the API's "overflow_rate_fen"): aria-invalid when one has a problem,
// and autofocus when it is the form's first bad field, so that the page opens, or htmx swaps
// the form in, with the cursor where the first fix is. Nothing for a good input.
func (ps Problems) Attrs(fields ...string) templ.Attributes {
	for i, p := range ps {
		if !slices.Contains(fields, p.Field) {
			continue
		}
		if i == 0 {
			return templ.Attributes{"aria-invalid": "true", "autofocus": true}
		}
		return templ.Attributes{"aria-invalid": "true"}
	}
	return nil
}
