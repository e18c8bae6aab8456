package archive

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"

	"kashi/models"
)

// Latest is the key of the latest backup in the store ("" when it has none).
func (s *Store) Latest(ctx context.Context) (string, error) {
	objs, err := s.list(ctx, models.ArchiveBackups, false)
	if err != nil || len(objs) == 0 {
		return "", err
	}
	return objs[len(objs)-1].Key, nil // keys sort by day
}

// Restore rebuilds the database dsn from the latest backup in the store and returns its
// key. A SQLite file must not exist yet (a fresh server); a Postgres database is loaded with
// psql from a backup pg_dump made.
func Restore(ctx context.Context, s *Store, dsn string) (string, error) {
	key, err := s.Latest(ctx)
	if err != nil {
		return "", err
	}
	if key == "" {
		return "", fmt.Errorf("archive: no backup under %s/%s", s.key(""), models.ArchiveBackups)
	}
	pg := models.IsPostgresDSN(dsn)
	if sql := strings.HasSuffix(key, ".sql"); sql != pg {
		return "", fmt.Errorf("archive: the latest backup %s is not of this kind of database", key)
	}
	if !pg {
		path := strings.TrimPrefix(dsn, "file:")
		path, _, _ = strings.Cut(path, "?")
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("archive: %s exists: restore makes a new database, it does not overwrite one", path)
		}
		part := path + ".restoring"
		if err := s.getFile(ctx, key, part); err != nil {
			return "", err
		}
		if err := os.Chmod(part, 0o600); err != nil {
			return "", err
		}
		return key, os.Rename(part, path)
	}
	dir, err := os.MkdirTemp("", "kashi-restore-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	file := dir + "/backup.sql"
	if err := s.getFile(ctx, key, file); err != nil {
		return "", err
	}
	bin, err := exec.LookPath("psql")
	if err != nil {
		return "", errors.New("archive: psql is not installed here (Debian: postgresql-client): load the backup with it")
	}
	out, err := exec.CommandContext(ctx, bin, "--quiet", "-v", "ON_ERROR_STOP=1", "--single-transaction", "--file", file, "--dbname", dsn).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("archive: psql: %w: %s", err, strings.TrimSpace(string(out)))
	}
	return key, nil
}
