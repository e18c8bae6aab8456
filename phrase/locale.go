package phrase

import (
	"fmt"
	"maps"
	"strconv"
	"strings"
	"time"

	"golang.org/x/text/language"
)

// The languages the UI speaks, as BCP 47 tags.
const (
	LangEN = "en"
	LangZH = "zh-CN"
)

// Locale is a language Kashi writes in: a page's, its reader's choice, or a chat message's,
// the installation's. The zero value writes English.
type Locale struct{ Lang string }

// Language is one entry of the language switcher.
type Language struct {
	Code string // BCP 47 tag, the value of Locale.Lang
	Name string // the language's own name for itself
}

// Languages lists the languages the UI speaks, in switcher order.
func Languages() []Language {
	return []Language{{Code: LangEN, Name: "English"}, {Code: LangZH, Name: "中文"}}
}

var (
	supported = []language.Tag{language.English, language.MustParse(LangZH)}
	matcher   = language.NewMatcher(supported)
)

// Negotiate picks the locale of a request: the language cookie when it names a language the UI
// speaks, else the best match for the Accept-Language header, else English.
func Negotiate(cookie, acceptLanguage string) Locale {
	for _, lang := range Languages() {
		if strings.EqualFold(strings.TrimSpace(cookie), lang.Code) {
			return Locale{Lang: lang.Code}
		}
	}
	tags, _, err := language.ParseAcceptLanguage(acceptLanguage)
	if err != nil || len(tags) == 0 {
		return Locale{Lang: LangEN}
	}
	_, i, conf := matcher.Match(tags...)
	if conf == language.No {
		return Locale{Lang: LangEN}
	}
	return Locale{Lang: Languages()[i].Code}
}

// Code is the locale's language, as a BCP 47 tag: English when Lang is not one the UI speaks.
func (l Locale) Code() string {
	if l.Lang == LangZH {
		return LangZH
	}
	return LangEN
}

func (l Locale) catalog() map[string]string {
	if l.Lang == LangZH {
		return catalogZH
	}
	return catalogEN
}

// T returns the text of key in the locale's language, formatted with args as by fmt.Sprintf
// when there are any. A key missing from the catalog falls back to English, then to the key
// itself; the catalog tests keep that from happening.
func (l Locale) T(key string, args ...any) string {
	s, ok := l.catalog()[key]
	if !ok {
		if s, ok = catalogEN[key]; !ok {
			return key
		}
	}
	if len(args) == 0 {
		return s
	}
	return fmt.Sprintf(s, args...)
}

// Count returns the text of key for a count of n, with n (written as Int writes it) as the
// first argument and args after it: the text of key+".one" when n is 1, so that English says
// "1 GPU" and "2 GPUs". Every key Count takes has its ".one" in both catalogs (the catalog
// tests check it); Chinese writes both alike.
func (l Locale) Count(key string, n int, args ...any) string {
	if n == 1 {
		key += ".one"
	}
	return l.T(key, append([]any{l.Int(n)}, args...)...)
}

// Has reports whether the catalogs hold key, in the locale's language or in English.
func (l Locale) Has(key string) bool {
	if _, ok := l.catalog()[key]; ok {
		return true
	}
	_, ok := catalogEN[key]
	return ok
}

// Int formats n with thousands separators: "1,234" (both languages group by three).
func (l Locale) Int(n int) string {
	return string(AppendInt(nil, int64(n)))
}

// AppendInt appends n with thousands separators, as Locale.Int writes it, to b.
func AppendInt(b []byte, n int64) []byte {
	var digits [24]byte
	s := strconv.AppendInt(digits[:0], n, 10)
	if n < 0 {
		b = append(b, '-')
		s = s[1:]
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, c)
	}
	return b
}

// percents holds "0%" to "100%", the strings the board writes thousands of times.
var percents = func() (p [101]string) {
	for i := range p {
		p[i] = strconv.Itoa(i) + "%"
	}
	return p
}()

// Percent formats a whole percentage: "42%".
func (l Locale) Percent(p int) string {
	if p >= 0 && p <= 100 {
		return percents[p]
	}
	return l.Int(p) + "%"
}

// MiB formats an amount of memory given in MiB: "512 MiB", "12.3 GiB", "80 GiB", "1.5 TiB".
func (l Locale) MiB(m int64) string {
	b, unit := appendMem(make([]byte, 0, 16), m)
	return string(append(append(b, ' '), unit...))
}

// MiBOf formats used out of total memory, naming the unit once when both share it or used is
// zero: "12.3 / 80 GiB", "512 MiB / 80 GiB", "0 / 80 GiB".
func (l Locale) MiBOf(used, total int64) string {
	return string(AppendMiBOf(make([]byte, 0, 24), used, total))
}

// AppendMiBOf appends Locale.MiBOf(used, total) to b.
func AppendMiBOf(b []byte, used, total int64) []byte {
	b, uu := appendMem(b, used)
	if used != 0 && uu != memUnitOf(total) {
		b = append(b, ' ')
		b = append(b, uu...)
	}
	b = append(b, " / "...)
	b, tu := appendMem(b, total)
	b = append(b, ' ')
	return append(b, tu...)
}

// appendMem appends m MiB as a number with at most one decimal and returns the binary unit it
// is in.
func appendMem(b []byte, m int64) ([]byte, string) {
	if m < 1024 {
		return AppendInt(b, m), "MiB"
	}
	tenths := (m*10 + 512) / 1024 // GiB, rounded to a tenth
	unit := "GiB"
	if tenths >= 10240 {
		tenths = (tenths + 512) / 1024
		unit = "TiB"
	}
	b = AppendInt(b, tenths/10)
	if f := tenths % 10; f != 0 {
		b = append(b, '.', byte('0'+f))
	}
	return b, unit
}

// memUnitOf is the unit appendMem writes m in.
func memUnitOf(m int64) string {
	_, unit := appendMem(make([]byte, 0, 24), m)
	return unit
}

// Duration formats d, truncated to its two largest units: en "2h 5m", "3m", "45s", "1d 4h";
// zh-CN "2小时5分", "3分钟", "45秒", "1天4小时". Negative durations read as zero.
func (l Locale) Duration(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	itoa := func(n time.Duration) string { return strconv.FormatInt(int64(n), 10) }
	switch {
	case d < time.Minute:
		return itoa(d/time.Second) + l.T("dur.s")
	case d < time.Hour:
		return itoa(d/time.Minute) + l.T("dur.m_only")
	case d < 24*time.Hour:
		s := itoa(d/time.Hour) + l.T("dur.h")
		if m := d % time.Hour / time.Minute; m != 0 {
			s += l.T("dur.sep") + itoa(m) + l.T("dur.m")
		}
		return s
	default:
		s := itoa(d/(24*time.Hour)) + l.T("dur.d")
		if h := d % (24 * time.Hour) / time.Hour; h != 0 {
			s += l.T("dur.sep") + itoa(h) + l.T("dur.h")
		}
		return s
	}
}

// Ago formats how long ago something happened, d before now: en "5m ago", zh-CN "5分钟前";
// under ten seconds "just now" / "刚刚".
func (l Locale) Ago(d time.Duration) string {
	if d < 10*time.Second {
		return l.T("time.just_now")
	}
	return l.T("time.ago", l.Duration(d))
}

// Catalog returns a copy of the locale's catalog, key to text; tests walk pages with it.
func (l Locale) Catalog() map[string]string { return maps.Clone(l.catalog()) }
