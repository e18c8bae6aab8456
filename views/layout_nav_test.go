package views

import (
	"bytes"
	"context"
	"testing"

	"kashi/phrase"
	"kashi/views/viewstest"
)

// TestNavUnread: the notifications entry carries the unread count, and only when there is one;
// the phone menu's toggle starts closed.
func TestNavUnread(t *testing.T) {
	for name, tc := range map[string]struct {
		unread int
		want   string
	}{"some": {3, "3"}, "none": {0, ""}} {
		t.Run(name, func(t *testing.T) {
			ctx := WithViewer(context.Background(), Viewer{Name: "alice", Role: "user", Unread: tc.unread})
			var buf bytes.Buffer
			if err := ErrorPage(phrase.Locale{Lang: phrase.LangZH}, 404, "").Render(ctx, &buf); err != nil {
				t.Fatal(err)
			}
			doc := viewstest.Parse(t, buf.Bytes())
			if got := doc.Find(`a[href="/notifications"] [data-testid=nav-unread]`).Text(); got != tc.want {
				t.Errorf("unread badge = %q, want %q", got, tc.want)
			}
			if got := doc.Find(`[data-testid=menu-toggle]`).AttrOr("aria-expanded", ""); got != "false" {
				t.Errorf("menu toggle aria-expanded = %q, want false", got)
			}
		})
	}
}
