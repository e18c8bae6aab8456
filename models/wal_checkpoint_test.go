package models

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCheckpointsBesideTheWriter: the SQLite writer never checkpoints the WAL at a commit (its
// automatic checkpoint is off), and the database file still learns what was committed, from
// the checkpoints that run beside it, while the store runs.
func TestCheckpointsBesideTheWriter(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "kashi.db")
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var auto int
	if err := s.db.ConnPool.(*pools).write.QueryRowContext(ctx, "PRAGMA wal_autocheckpoint").Scan(&auto); err != nil {
		t.Fatal(err)
	}
	if auto != 0 {
		t.Errorf("the writer checkpoints at a commit past %d pages; want never (0)", auto)
	}
	before := fileSize(t, path)
	// About 8 MB, some 2,000 pages of WAL: past the 1,000 at which a commit would checkpoint.
	if err := s.db.Exec("CREATE TABLE filler (b BLOB)").Error; err != nil {
		t.Fatal(err)
	}
	if err := s.db.Exec(`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 2000)
		INSERT INTO filler SELECT randomblob(4000) FROM c`).Error; err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * checkpointEvery); fileSize(t, path) < before+4<<20; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the database file is %d bytes (%d before 8 MB were committed): no checkpoint wrote the WAL back", fileSize(t, path), before)
		}
	}
}

// TestWALStartsOver: past its restart length the WAL is copied back and truncated in the
// writer's turn, while readers go on reading, so it does not grow without end beside a
// writer that never stops (a PASSIVE checkpoint alone never starts it over).
func TestWALStartsOver(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "kashi.db")
	s, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.db.ConnPool.(*pools).ckpt.restartAt.Store(64)
	if err := s.db.Exec("CREATE TABLE filler (b BLOB)").Error; err != nil {
		t.Fatal(err)
	}
	if err := s.db.Exec(`WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 2000)
		INSERT INTO filler SELECT randomblob(4000) FROM c`).Error; err != nil {
		t.Fatal(err)
	}
	if n := fileSize(t, path+"-wal"); n < 4<<20 {
		t.Fatalf("the WAL is %d bytes after 8 MB were committed; want them in it", n)
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() { // a reader that never stops
		for {
			select {
			case <-stop:
				return
			default:
				var n int64
				_ = s.db.Raw("SELECT count(*) FROM filler").Scan(&n).Error
			}
		}
	}()
	for deadline := time.Now().Add(10 * checkpointEvery); fileSize(t, path+"-wal") > 1<<20; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the WAL is still %d bytes: it never started over", fileSize(t, path+"-wal"))
		}
	}
}

// fileSize is the size of the file at path.
func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// TestValuesChunksAreFewTexts: VALUES lists are cut into powers of two up to 1,024 rows, each
// at most what is left, so that any number of rows is written with at most 11 statement
// texts, each prepared once per connection.
func TestValuesChunksAreFewTexts(t *testing.T) {
	texts := map[int]bool{}
	for n := 1; n <= 5000; n++ {
		for rest := n; rest > 0; {
			c := valuesChunk(rest)
			if most := min(rest, 1024); c < 1 || c&(c-1) != 0 || c > most || 2*c <= most {
				t.Fatalf("valuesChunk(%d) = %d; want the largest power of two up to min(%d, 1024)", rest, c, rest)
			}
			texts[c] = true
			rest -= c
		}
	}
	if len(texts) != 11 {
		t.Errorf("%d chunk sizes for 1 to 5,000 rows; want 11 (1, 2, 4 … 1,024)", len(texts))
	}
}
