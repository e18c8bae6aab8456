package views

import (
	"regexp"
	"strings"
	"testing"

	"kashi/api"
	"kashi/phrase"
)

// catalogTexts are, by language, patterns of the texts the catalog of that language gives
// (format verbs match anything); texts made of verbs alone are left out, as they say nothing
// of their own. Codes' texts are checked against these only, so the test follows the
// catalogs wherever they live.
func catalogTexts(t *testing.T) map[string][]*regexp.Regexp {
	t.Helper()
	verb := regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z%]`)
	out := map[string][]*regexp.Regexp{}
	for _, lang := range phrase.Languages() {
		for _, text := range (phrase.Locale{Lang: lang.Code}).Catalog() {
			parts := verb.Split(text, -1)
			if strings.TrimSpace(strings.Join(parts, "")) == "" {
				continue
			}
			for i, p := range parts {
				parts[i] = regexp.QuoteMeta(p)
			}
			out[lang.Code] = append(out[lang.Code], regexp.MustCompile(`^`+strings.Join(parts, `(?s:.*)`)+`$`))
		}
	}
	return out
}

// checkCodeTexts fails for each code of list whose text, as text writes it in each language,
// is none of that language's catalog texts: the view does not know the code (it shows it
// bare, which the viewstest.Zh-CN catalog never has) or the catalog lacks its text (the page falls back
// to English or to the key).
func checkCodeTexts[C ~string](t *testing.T, kind string, list []C, text func(phrase.Locale, C) string) {
	t.Helper()
	for lang, texts := range catalogTexts(t) {
		for _, code := range list {
			got := text(phrase.Locale{Lang: lang}, code)
			known := false
			for _, re := range texts {
				known = known || re.MatchString(got)
			}
			if !known {
				t.Errorf("%s %q: its %s text %q is none of the %[3]s catalog's", kind, code, lang, got)
			}
		}
	}
}

// TestCodesHaveText checks that every task state, wait reason and GPU state that api lists
// has its text on the pages in every language, so that a code added to api shows as words,
// never as the bare code or in another language.
func TestCodesHaveText(t *testing.T) {
	checkCodeTexts(t, "task state", api.TaskStates(), TaskStateLabel)
	checkCodeTexts(t, "wait reason", api.WaitReasons(), func(l phrase.Locale, r api.WaitReason) string {
		return ReasonText(l, QueueRow{Reason: r})
	})
	checkCodeTexts(t, "GPU state", api.GPUStates(), GpuStateText)
}
