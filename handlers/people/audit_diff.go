package people

import (
	"bytes"
	"cmp"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode"

	"kashi/phrase"
	"kashi/views"
	peopleview "kashi/views/people"
)

// auditWords writes an audit entry as people read it, in the page's language: its fields by
// the labels they have on the forms, values formatted (money, durations, times in the
// viewer's zone, users by name, codes as words), never as JSON.
type auditWords struct {
	l    phrase.Locale
	zone *time.Location
	// users names the users by id, for the fields that hold one (requested_by, decided_by…).
	users map[int64]string
}

// changes is an entry's change field by field: the fields of its before and after JSON
// objects (nested objects, and JSON objects held in a string, flattened as "a.b") whose
// values differ, by name, with names in snake_case; bookkeeping fields, and a new thing's
// empty ones, are left out. A value that is not an object is one field, "value".
func (w auditWords) changes(before, after string) []peopleview.AuditChange {
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
		ch := peopleview.AuditChange{Field: k, Label: w.label(k), Before: w.value(k, bv), After: w.value(k, av)}
		if ch.Before != ch.After {
			out = append(out, ch)
		}
	}
	return out
}

// bookkeeping are fields an entry's change never shows: row ids, stamps, and the project the
// entry names already.
var bookkeeping = map[string]bool{"id": true, "updated_at": true, "project_id": true}

// label is a field's label: the audit catalog's ("audit.field.<name>"), else the pool
// settings' (a pool's configuration), else its name; a nested field's is its parent's and
// its own, "change asked · GPUs at once".
func (w auditWords) label(field string) string {
	if parent, name, ok := strings.Cut(field, "."); ok {
		return w.label(parent) + " · " + w.label(name)
	}
	for _, key := range []string{phrase.AuditFieldKeyPrefix + field, phrase.PoolFieldKeyPrefix + field} {
		if w.l.Has(key) {
			return w.l.T(key)
		}
	}
	return field
}

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

// flatJSON reads s as JSON: an object's fields flattened with dotted snake_case names, a
// string that holds a JSON object (a request's change) as that object, or anything else as
// the field "value". Empty and null are no fields.
func flatJSON(s string) map[string]any {
	out := map[string]any{}
	v := decodeJSON(s)
	if v == nil {
		return out
	}
	var walk func(prefix string, v any, depth int)
	walk = func(prefix string, v any, depth int) {
		if str, ok := v.(string); ok && strings.HasPrefix(str, "{") {
			if m, ok := decodeJSON(str).(map[string]any); ok {
				v = m
			}
		}
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

// decodeJSON is s decoded with numbers kept as json.Number; nil when s is empty, null or not
// JSON.
func decodeJSON(s string) any {
	var v any
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	if s == "" || d.Decode(&v) != nil {
		return nil
	}
	return v
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

// auditTerms are the catalog prefixes of the words for the codes a field holds: a value v
// reads as the text of prefix+v (or of prefix+v with '_' for '-') where a catalog has it.
// phrase.AuditValueKeyPrefix+field+"." comes first, for the codes no page names elsewhere.
var auditTerms = map[string][]string{
	"kind":  {"requests.kind."},
	"mode":  {"bill.mode."},
	"role":  {"role."},
	"scope": {"tokens.scope."},
	"state": {"requests.state.", "task.state."},
}

// listFields hold comma-separated lists, shown with a space after each comma.
var listFields = map[string]bool{"tags": true, "remind_end_days": true, "remind_budget_pcts": true}

// value shows one value of field: "—" for none, yes or no, times in the viewer's zone, fen
// as yuan, seconds as a duration, percentages, users by name, ids as #n, codes as words,
// lists joined, objects as their fields' labels and values.
func (w auditWords) value(field string, v any) string {
	name := field[strings.LastIndexByte(field, '.')+1:]
	switch x := v.(type) {
	case nil:
		return "—"
	case bool:
		if x {
			return w.l.T("audit.yes")
		}
		return w.l.T("audit.no")
	case string:
		if x == "" {
			return "—"
		}
		if t, err := time.Parse(time.RFC3339Nano, x); err == nil {
			return t.In(w.zone).Format("2006-01-02 15:04:05")
		}
		if listFields[name] {
			return strings.Join(strings.Split(x, ","), ", ")
		}
		return w.term(name, x)
	case json.Number:
		return w.number(name, x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = w.value(field, e)
		}
		sep := ", "
		if slices.ContainsFunc(x, func(e any) bool { _, ok := e.(map[string]any); return ok }) {
			sep = "; "
		}
		return strings.Join(parts, sep)
	case map[string]any:
		keys := slices.SortedFunc(maps.Keys(x), func(a, b string) int { // its name first
			return cmp.Or(boolCompare(b == "name", a == "name"), strings.Compare(a, b))
		})
		parts := make([]string, 0, len(keys))
		for _, k := range keys {
			parts = append(parts, w.label(snake(k))+" "+w.value(snake(k), x[k]))
		}
		return strings.Join(parts, ", ")
	}
	return "—"
}

// number shows a number by what its field holds: money (_fen), seconds (_s), a percentage
// (_pct), a user (_by) or a row (_id).
func (w auditWords) number(name string, x json.Number) string {
	n, err := x.Int64()
	switch {
	case err == nil && strings.HasSuffix(name, "_fen"):
		return views.Yuan(n)
	case err == nil && strings.HasSuffix(name, "_s"):
		return w.l.Duration(time.Duration(n) * time.Second)
	case strings.HasSuffix(name, "_pct"):
		return x.String() + "%"
	case err == nil && strings.HasSuffix(name, "_by"):
		if u, ok := w.users[n]; ok {
			return u
		}
		return "#" + x.String()
	case err == nil && strings.HasSuffix(name, "_id"):
		return "#" + x.String()
	case err == nil:
		return w.l.Int(int(n))
	}
	return x.String()
}

// term is the word for a code of field, or the code as it is when no catalog names it.
func (w auditWords) term(field, code string) string {
	prefixes := append([]string{phrase.AuditValueKeyPrefix + field + "."}, auditTerms[field]...)
	for _, p := range prefixes {
		for _, key := range []string{p + code, p + strings.ReplaceAll(code, "-", "_")} {
			if w.l.Has(key) {
				return w.l.T(key)
			}
		}
	}
	return code
}

// boolCompare orders false before true.
func boolCompare(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}
