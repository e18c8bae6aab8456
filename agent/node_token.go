package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/natefinch/atomic"
)

// nodeTokenFile holds, in the state directory, the node's own token: a restarted agent
// presents it (api.HeaderNodeToken) to take its hostname back; the server refuses anyone
// else who holds only the join token. It is readable by the agent's user only.
const nodeTokenFile = "node-token"

// loadNodeToken reads the token a previous run saved in dir; "" when there is none.
func loadNodeToken(dir string) (string, error) {
	if dir == "" {
		return "", nil
	}
	b, err := os.ReadFile(filepath.Join(dir, nodeTokenFile))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("agent: read node token: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// saveNodeToken keeps token in dir for the next run, replacing the file whole.
func saveNodeToken(dir, token string) error {
	if dir == "" {
		return nil
	}
	path := filepath.Join(dir, nodeTokenFile)
	if err := atomic.WriteFile(path, strings.NewReader(token+"\n")); err != nil {
		return fmt.Errorf("agent: save node token: %w", err)
	}
	return os.Chmod(path, 0o600)
}
