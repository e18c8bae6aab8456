package people

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"time"
	"unicode"

	"kashi/phrase"
	"kashi/views"
	peopleview "kashi/views/people"
)

// auditChanges is an entry's change field by field: the fields of its before and after JSON
// objects (nested objects flattened as "a.b") whose values differ, by name, with names in
// snake_case for the catalogs; bookkeeping fields, and a new thing's empty ones, are left out. Times show in
// zone, money (fields ending in _fen) in yuan. A value that is not an object is one field,
// "value".
func auditChanges(l phrase.Locale, before, after string, zone *time.Location) []peopleview.AuditChange {
	b, a := flatJSON(before), flatJSON(after)
	var names []string
	for k := range b {
		names = append(names, k)
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	var out []peopleview.AuditChange
	for _, k := range names {
		bv, av := b[k], a[k]
		if bookkeeping[k] || jsonEqual(bv, av) || (len(b) == 0 && zeroJSON(av)) {
			continue // a new thing's empty fields say nothing
		}
		ch := peopleview.AuditChange{Field: k, Before: auditValue(l, k, bv, zone), After: auditValue(l, k, av, zone)}
		if ch.Before != ch.After {
			out = append(out, ch)
		}
	}
	return out
}

// bookkeeping are fields an entry's change never shows: row ids, stamps, and the project the
// entry names already.
var bookkeeping = map[string]bool{"id": true, "updated_at": true, "project_id": true}

// zeroJSON reports whether a decoded JSON value is empty: null, false, 0, "" or [].
func zeroJSON(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case string:
		return x == ""
	case json.Number:
		return x.String() == "0"
	case []any:
		return len(x) == 0
	}
	return false
}

// flatJSON reads s as JSON: an object's fields flattened with dotted snake_case names, or
// anything else as the field "value". Empty and null are no fields.
func flatJSON(s string) map[string]any {
	out := map[string]any{}
	var v any
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	if s == "" || d.Decode(&v) != nil || v == nil {
		return out
	}
	var walk func(prefix string, v any, depth int)
	walk = func(prefix string, v any, depth int) {
		m, ok := v.(map[string]any)
		if !ok || depth > 2 {
			out[prefix] = v
			return
		}
		for k, x := range m {
			name := snake(k)
			if prefix != "" {
				name = prefix + "." + name
			}
			walk(name, x, depth+1)
		}
	}
	if _, ok := v.(map[string]any); !ok {
		out["value"] = v
		return out
	}
	walk("", v, 0)
	return out
}

// snake writes a Go or JSON field name in snake_case: "MaxGPUs" → "max_gpus", "ProjectID" →
// "project_id"; names already in snake_case stay.
func snake(s string) string {
	r := []rune(s)
	var b strings.Builder
	for i, c := range r {
		if unicode.IsUpper(c) && i > 0 {
			prev := r[i-1]
			next := i+1 < len(r) && unicode.IsLower(r[i+1]) && r[i+1] != 's'
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && next) {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}

// jsonEqual compares two decoded JSON values.
func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// auditValue shows one value: "—" for none, yes or no, times in zone, fen as yuan, lists
// joined, objects as compact JSON.
func auditValue(l phrase.Locale, field string, v any, zone *time.Location) string {
	switch x := v.(type) {
	case nil:
		return "—"
	case bool:
		if x {
			return l.T("audit.yes")
		}
		return l.T("audit.no")
	case string:
		if x == "" {
			return "—"
		}
		if t, err := time.Parse(time.RFC3339Nano, x); err == nil {
			return t.In(zone).Format("2006-01-02 15:04:05")
		}
		return x
	case json.Number:
		if n, err := x.Int64(); err == nil && strings.HasSuffix(field, "_fen") {
			return views.Yuan(n)
		}
		return x.String()
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = auditValue(l, field, e, zone)
		}
		return strings.Join(parts, ", ")
	}
	js, _ := json.Marshal(v)
	return string(js)
}
