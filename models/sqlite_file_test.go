package models_test

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"kashi/models"
)

// The SQLite database and its -wal and -shm files hold password and token hashes: a fresh
// database makes them 0600 whatever the umask lets through, and an existing database that
// others could read is made 0600 when it is opened.
func TestSQLiteFilesPrivate(t *testing.T) {
	defer syscall.Umask(syscall.Umask(0o022)) // the common umask, which lets others read
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "kashi.db")
	open := func(user string) *models.Store {
		s, err := models.Open(ctx, path, models.Options{})
		if err != nil {
			t.Fatal(err)
		}
		// A write: the -wal and -shm files are there.
		if _, err := s.CreateUser(ctx, user, "pw-"+user, models.RoleUser, billT0); err != nil {
			t.Fatal(err)
		}
		return s
	}
	want := func(when string) {
		t.Helper()
		for _, p := range []string{path, path + "-wal", path + "-shm"} {
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatalf("%s: %v", when, err)
			}
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("%s: %s has mode %v, want -rw-------", when, filepath.Base(p), fi.Mode().Perm())
			}
		}
	}
	s := open("ana")
	want("a fresh database")
	s.Close()

	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	s = open("bo")
	defer s.Close()
	want("a database others could read, opened again")
}
