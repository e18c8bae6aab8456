// Failure messages of the page walks.

package webtest

import "strings"

// Around is the text near the first s in text, for a failure message.
func Around(text, s string) string {
	i := strings.Index(text, s)
	r := []rune(text[max(i-40, 0):min(i+40, len(text))])
	return strings.Join(strings.Fields(string(r)), " ")
}
