package handlers

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// badText finds the first string in body, a valid JSON value, that is not valid UTF-8, holds an
// unpaired surrogate escape, or holds NUL, and returns its JSON path ("name", "command[1]",
// "env.A") and what is wrong. The decoder would replace bad UTF-8 with U+FFFD without a word,
// so the store's own checks would never see it; Postgres refuses NUL in text.
func badText(body []byte) (field, problem string, bad bool) {
	lower := bytes.ToLower(body)
	if utf8.Valid(body) && !bytes.Contains(lower, []byte(`\ud`)) && !bytes.Contains(body, []byte(`\u0000`)) {
		return "", "", false // no invalid byte, no surrogate or NUL escape
	}
	type frame struct {
		obj     bool
		key     string // object: the key being read
		n       int    // array: the index being read
		keyNext bool   // object: the next string is a key
	}
	var stack []frame
	path := func() string {
		var b strings.Builder
		for _, f := range stack {
			if !f.obj {
				b.WriteString("[" + strconv.Itoa(f.n) + "]")
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(f.key)
		}
		return b.String()
	}
	valueDone := func() {
		if len(stack) == 0 {
			return
		}
		if top := &stack[len(stack)-1]; top.obj {
			top.keyNext = true
		} else {
			top.n++
		}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	start := int64(0)
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", "", false
		}
		end := dec.InputOffset()
		raw := body[start:end]
		start = end
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				stack = append(stack, frame{obj: true, keyNext: true})
			case '[':
				stack = append(stack, frame{})
			default:
				stack = stack[:len(stack)-1]
				valueDone()
			}
		case string:
			top := len(stack) - 1
			isKey := top >= 0 && stack[top].obj && stack[top].keyNext
			if isKey {
				stack[top].key, stack[top].keyNext = v, false
			}
			switch {
			case replaced(raw, v):
				return path(), "is not valid UTF-8", true
			case strings.IndexByte(v, 0) >= 0:
				return path(), "must not contain NUL", true
			}
			if !isKey {
				valueDone()
			}
		default:
			valueDone()
		}
	}
}

// replaced reports whether decoding the raw JSON text raw into s replaced anything with U+FFFD:
// raw has an invalid byte, or s more U+FFFD than raw spells out.
func replaced(raw []byte, s string) bool {
	if !utf8.Valid(raw) {
		return true
	}
	n := strings.Count(s, "\uFFFD")
	return n > 0 && n > bytes.Count(raw, []byte("\uFFFD"))+bytes.Count(bytes.ToLower(raw), []byte(`\ufffd`))
}
