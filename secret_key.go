package main

import (
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"kashi/models"
)

// secretKeyFile is the key file kept next to a SQLite database when no --secret-key is given.
const secretKeyFile = "kashi-secret.key"

// loadSecretKey gives the store the key that seals secret environment values: --secret-key
// (base64 of 32 bytes) or, with SQLite, a key file beside the database, made on first run
// with mode 0600. With Postgres and no key, secret values are refused.
func loadSecretKey(store *models.Store, cfg serveConfig, log *slog.Logger) error {
	raw := cfg.SecretKey
	if raw == "" && models.IsPostgresDSN(cfg.DB) {
		log.Warn("no --secret-key: tasks cannot send secret environment values")
		return nil
	}
	if raw == "" {
		path := filepath.Join(filepath.Dir(strings.TrimPrefix(cfg.DB, "file:")), secretKeyFile)
		b, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			key := make([]byte, models.SecretKeySize)
			rand.Read(key)
			b = []byte(base64.StdEncoding.EncodeToString(key))
			err = os.WriteFile(path, b, 0o600)
		}
		if err != nil {
			return fmt.Errorf("secret key file: %w", err)
		}
		raw = string(b)
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimSpace(raw))
	if err != nil {
		return fmt.Errorf("--secret-key: not base64: %w", err)
	}
	return store.SetSecretKey(key)
}
