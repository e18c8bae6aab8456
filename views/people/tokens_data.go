package people

import "time"

// TokensData is the API tokens page.
type TokensData struct {
	Tokens []TokenView
	// NewToken is shown once, right after it was made.
	NewToken string
	Error    string
}

// TokenView is one API token, never its secret.
type TokenView struct {
	ID         int64
	Name       string
	Scope      string
	CreatedAt  time.Time
	LastUsedAt *time.Time
	Revoked    bool
}
