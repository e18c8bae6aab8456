package api

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
