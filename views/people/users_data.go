package people

import (
	"time"

	"kashi/views"
)

// UsersData is the people page (用户) for admins: every user with their role and state, the
// form that adds one, and per user the disable or enable button and a password reset.
type UsersData struct {
	Users []UserRow
	// Self is the viewer's name: they cannot disable themselves.
	Self string
	// Form is the add form after a refused submit.
	Form UserForm
	// Target, Field and Error name a refused action on one user (a reset password).
	Target, Field, Error string
	Notice               string
}

// UserRow is one user in the list.
type UserRow struct {
	Name, Role string
	Disabled   bool
	// UnixAccount is the account on the nodes the user's tasks run as; "" for none.
	UnixAccount string
	CreatedAt   time.Time
}

// UserForm is the add-user form's text as typed; Field and Error name a refused field.
type UserForm struct {
	Name, Role string
	Problems   views.Problems
}

// UserFields are the add form's fields in its order.
var UserFields = []string{"name", "role", "password"}

// AccountData is the viewer's own account page: who they are and the password form.
type AccountData struct {
	Name, Role   string
	Field, Error string
	Notice       string
	// Chat is the form of the user's chat ids (models.ChatIDs): the values shown, and the
	// field refused with its message.
	ChatDingTalk, ChatFeishu, ChatWeCom string
	ChatField, ChatError                string
}
