package api

import "time"

// UnixAccountRequest sets the Unix account a user's tasks run as on the nodes ("" for none):
// POST /api/v1/users/{name}/unix-account (admins). It answers the user's UnixAccount.
type UnixAccountRequest struct {
	UnixAccount string `json:"unix_account"`
}

// UnixAccount is a user's Unix account: the account on the nodes that the user's tasks run
// as, "" for none set.
type UnixAccount struct {
	Name        string `json:"name"`
	UnixAccount string `json:"unix_account"`
}

// User is a user as POST /api/v1/users answers the new one.
type User struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
	Role string `json:"role"`
}

// Token is an API token as GET /api/v1/tokens lists it: never the token itself.
type Token struct {
	ID         int64      `json:"id"`
	Name       string     `json:"name"`
	Scope      string     `json:"scope"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	RevokedAt  *time.Time `json:"revoked_at"`
}

// NewToken is a token just made (POST /api/v1/tokens): Secret is shown this once; only its
// hash is kept.
type NewToken struct {
	Token
	Secret string `json:"token"`
}

// Notification is one of the caller's in-app notifications.
type Notification struct {
	Kind      string     `json:"kind"`
	Message   string     `json:"message"`
	CreatedAt time.Time  `json:"created_at"`
	ReadAt    *time.Time `json:"read_at"`
}

// AuditEntry is one audit log entry; Before and After are what changed, as JSON text.
type AuditEntry struct {
	At      time.Time `json:"at"`
	Actor   string    `json:"actor"`
	Action  string    `json:"action"`
	Subject string    `json:"subject"`
	Before  string    `json:"before"`
	After   string    `json:"after"`
}

// Health is GET /healthz's answer: "ok" with 200, "database unavailable" with 503.
type Health struct {
	Status string `json:"status"`
}

// NewUser is the body of POST /api/v1/users (admins).
type NewUser struct {
	Name     string `json:"name"`
	Password string `json:"password"`
	Role     string `json:"role"`
}

// TokenRequest is the body of POST /api/v1/tokens: the token's name and scope (read or
// write). It answers a NewToken.
type TokenRequest struct {
	Name  string `json:"name"`
	Scope string `json:"scope"`
}
