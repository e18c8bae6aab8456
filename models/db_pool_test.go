package models

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"gorm.io/gorm"
)

func TestReadOnly(t *testing.T) {
	for q, want := range map[string]bool{
		"SELECT * FROM gpus":                    true,
		"  select count(*) from users":          true,
		"(SELECT 1) UNION (SELECT 2)":           true,
		"WITH x AS (SELECT 1) SELECT * FROM x":  true,
		"WITH x AS (SELECT 1) DELETE FROM t":    false,
		"INSERT INTO t VALUES (1) RETURNING id": false,
		"UPDATE gpus SET util_pct = 1":          false,
		"PRAGMA foreign_keys":                   false,
		"SELEC":                                 false,
	} {
		if got := readOnly(q); got != want {
			t.Errorf("readOnly(%q) = %v, want %v", q, got, want)
		}
	}
}

// On SQLite a read outside a transaction is answered while a write transaction holds the
// writer, and the read pool refuses writes.
func TestSQLiteReadsPassTheWriter(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "kashi.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.CreateUser(ctx, "ann", "a long password", RoleAdmin, time.Now()); err != nil {
		t.Fatal(err)
	}
	holding, release := make(chan struct{}), make(chan struct{})
	writeDone := make(chan error)
	go func() {
		writeDone <- s.db.Transaction(func(tx *gorm.DB) error {
			if err := tx.Model(&User{}).Where("name = ?", "ann").Update("role", RoleViewer).Error; err != nil {
				return err
			}
			close(holding)
			<-release
			return nil
		})
	}()
	<-holding
	rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	u, err := s.UserByName(rctx, "ann")
	cancel()
	close(release)
	if err != nil || u.Role != RoleAdmin {
		t.Errorf("UserByName during a write = %q, %v, want the committed role %q", u.Role, err, RoleAdmin)
	}
	if err := <-writeDone; err != nil {
		t.Fatal(err)
	}
	if _, err := s.readPool().ExecContext(ctx, "DELETE FROM users"); err == nil {
		t.Error("the read pool ran a DELETE, want it refused")
	}
}

// On SQLite every read connection maps the file, however many the pool opens.
func TestSQLiteReadersMapTheFile(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "kashi.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var conns []*sql.Conn
	for range 3 {
		c, err := s.readPool().Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		conns = append(conns, c)
	}
	for i, c := range conns {
		var size int64
		if err := c.QueryRowContext(ctx, "PRAGMA mmap_size").Scan(&size); err != nil || size != readerMmap {
			t.Errorf("connection %d: mmap_size = %d, %v; want %d", i, size, err, readerMmap)
		}
	}
}
