package views

import (
	"testing"

	"kashi/api"
)

// catalogs are the catalogs every page text must be in, by language. Codes' texts are looked
// up here only, so the test follows the catalogs wherever they live.
func catalogs() map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, lang := range Languages() {
		out[lang.Code] = Locale{Lang: lang.Code}.Catalog()
	}
	return out
}

// checkCodeKeys fails for each code of list that keys gives no catalog key, for each key
// missing from a language's catalog, and for each entry of keys that list does not have.
func checkCodeKeys[C ~string](t *testing.T, kind string, list []C, keys map[C]string) {
	t.Helper()
	cats := catalogs()
	for _, code := range list {
		key, ok := keys[code]
		if !ok {
			t.Errorf("%s %q has no text on the pages: add it to the view's keys and to the catalogs", kind, code)
			continue
		}
		for lang, cat := range cats {
			if _, ok := cat[key]; !ok {
				t.Errorf("%s %q: the %s catalog has no %q", kind, code, lang, key)
			}
		}
	}
	if len(keys) != len(list) {
		t.Errorf("the view knows %d %ss, api lists %d: %v vs %v", len(keys), kind, len(list), keys, list)
	}
}

// TestCodesHaveText checks that every task state, wait reason and GPU state api lists has its
// text on the pages in every language, so that a code added to api shows as words, never as
// the bare code or an English fallback.
func TestCodesHaveText(t *testing.T) {
	checkCodeKeys(t, "task state", api.TaskStates(), taskStateKeys)
	checkCodeKeys(t, "wait reason", api.WaitReasons(), reasonKeys)
	checkCodeKeys(t, "GPU state", api.GPUStates(), gpuStateKeys)
}
