package views

import (
	"context"

	"kashi/phrase"
)

// Viewer is who looks at a page: the layout shows the name and a logout button, and forms
// carry the CSRF token. Handlers put it in the render context with WithViewer.
type Viewer struct {
	Name string
	Role string
	// Lead is true when the viewer leads a project: the approvals and audit pages are theirs.
	Lead bool
	// CSRF is the token every form posts back in its _csrf field (and htmx in X-CSRF-Token).
	CSRF string
	// Unread counts the viewer's unread notifications, shown beside the navigation's entry.
	Unread int
	// Pending counts the quota requests waiting for the viewer's decision (leads, admins),
	// shown beside the approvals entry.
	Pending int
}

type viewerKey struct{}

// WithViewer returns ctx carrying v for the layout and forms.
func WithViewer(ctx context.Context, v Viewer) context.Context {
	return context.WithValue(ctx, viewerKey{}, v)
}

// viewerOf returns the viewer in ctx; the zero Viewer when nobody is logged in.
func viewerOf(ctx context.Context) Viewer {
	v, _ := ctx.Value(viewerKey{}).(Viewer)
	return v
}

// csrfHeaders is the hx-headers value that makes htmx send the CSRF token.
func csrfHeaders(ctx context.Context) string {
	return `{"X-CSRF-Token": "` + viewerOf(ctx).CSRF + `"}`
}

// RoleLabel names a global role; "user" is someone whose rights come from their projects.
func RoleLabel(l phrase.Locale, role string) string {
	switch role {
	case "admin":
		return l.T("role.admin")
	case "finance":
		return l.T("role.finance")
	case "viewer":
		return l.T("role.viewer")
	}
	return l.T("role.user")
}
