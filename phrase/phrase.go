// Package phrase holds the words of Kashi in its languages, English and Chinese: the
// catalogs, and Locale, which writes a catalog's text, numbers and durations in one of them
// (T, Say, Int, Duration). Pages, notices and chat messages all translate through it.
//
// It also carries a sentence the server makes, such as why the scaling loop acted or did
// not, as catalog codes with their arguments, so that each page writes it in its reader's
// language (Locale.Say). A List is stored and sent as JSON (Encode, Decode).
package phrase

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"
)

// Kind is what an argument is, which decides how a page writes it.
type Kind string

// The kinds of argument.
const (
	Count   Kind = "n" // a whole number, grouped by thousands
	Seconds Kind = "d" // a duration in seconds, written in units
	Percent Kind = "p" // a whole percentage
	Text    Kind = "s" // a name or a time of day, written as it is
)

// Arg is one argument of a phrase.
type Arg struct {
	Kind Kind   `json:"k"`
	N    int64  `json:"n,omitempty"`
	S    string `json:"s,omitempty"`
}

// N is a count.
func N(n int) Arg { return Arg{Kind: Count, N: int64(n)} }

// ID is a count that is an id (a node's, a task's).
func ID(id int64) Arg { return Arg{Kind: Count, N: id} }

// Dur is a duration, to the second.
func Dur(d time.Duration) Arg {
	return Arg{Kind: Seconds, N: int64(d.Round(time.Second) / time.Second)}
}

// Pct is a percentage, rounded to a whole one.
func Pct(p float64) Arg {
	if p < 0 {
		return Arg{Kind: Percent, N: int64(p - 0.5)}
	}
	return Arg{Kind: Percent, N: int64(p + 0.5)}
}

// S is a name or any text shown as it is.
func S(s string) Arg { return Arg{Kind: Text, S: s} }

// Phrase is one part of a sentence: a catalog code (the catalogs hold it as "say.<code>")
// and its arguments in the order the catalog's text takes them.
type Phrase struct {
	Code string `json:"c"`
	Args []Arg  `json:"a,omitempty"`
}

// New is the phrase code with args.
func New(code string, args ...Arg) Phrase { return Phrase{Code: code, Args: args} }

// List is a sentence of phrases, written one after another, separated by "; ".
type List []Phrase

// Of is the list of phrases ps.
func Of(ps ...Phrase) List { return ps }

// And is l followed by ps, in a new list.
func (l List) And(ps ...Phrase) List { return append(l[:len(l):len(l)], ps...) }

// Encode is l as JSON, for a text column or an API field.
func (l List) Encode() string {
	if len(l) == 0 {
		return ""
	}
	b, _ := json.Marshal(l) // cannot fail: plain strings and numbers
	return string(b)
}

// Decode reads a list that Encode wrote; ok is false for any other text, such as an English
// sentence stored before phrases existed, which a page then shows as it is.
func Decode(s string) (l List, ok bool) {
	if !strings.HasPrefix(s, `[{"c":`) || json.Unmarshal([]byte(s), &l) != nil {
		return nil, false
	}
	return l, true
}

// String writes l without a catalog, for logs: code(arg, …); code(…).
func (l List) String() string {
	var b strings.Builder
	for i, p := range l {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.Code)
		b.WriteByte('(')
		for j, a := range p.Args {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(a.String())
		}
		b.WriteByte(')')
	}
	return b.String()
}

// String writes a without a catalog: 6, 3m0s, 86%, a name.
func (a Arg) String() string {
	switch a.Kind {
	case Count:
		return strconv.FormatInt(a.N, 10)
	case Seconds:
		return (time.Duration(a.N) * time.Second).String()
	case Percent:
		return strconv.FormatInt(a.N, 10) + "%"
	}
	return a.S
}
