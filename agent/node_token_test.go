package agent

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"kashi/api"
)

// A restarted agent proves it is the node that holds its hostname: the token of the first
// registration is saved in the state directory and sent again (the server refuses a
// re-registration with the join token alone).
func TestRegisterAgainPresentsTheSavedNodeToken(t *testing.T) {
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = append(seen, r.Header.Get(api.HeaderNodeToken))
		json.NewEncoder(w).Encode(api.RegisterResponse{NodeID: 1, Token: "kn_first"})
	}))
	defer srv.Close()
	dir := t.TempDir()
	register := func() {
		tok, err := loadNodeToken(dir)
		if err != nil {
			t.Fatal(err)
		}
		c := &Client{BaseURL: srv.URL, Token: tok}
		resp, err := c.Register(context.Background(), "kj_join", api.RegisterRequest{Hostname: "n1"})
		if err != nil {
			t.Fatal(err)
		}
		if err := saveNodeToken(dir, resp.Token); err != nil {
			t.Fatal(err)
		}
	}
	register() // first start: no token yet
	register() // after a restart
	if len(seen) != 2 || seen[0] != "" || seen[1] != "kn_first" {
		t.Errorf("node token headers = %q, want none, then the saved token", seen)
	}
	if fi, err := os.Stat(filepath.Join(dir, nodeTokenFile)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("token file: %v, mode %v; want 0600", err, fi.Mode().Perm())
	}
}
