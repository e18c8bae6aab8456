package models

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// filledWAL opens a store on a fresh SQLite file and commits about 8 MB to it: some 2,000
// pages of WAL, past the 1,000 at which a commit would checkpoint. It returns the store,
// the file's path and its size before the commit.
func filledWAL(t *testing.T) (*Store, string, int64) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "kashi.db")
	s, err := Open(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	before := fileSize(t, path)
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
	return s, path, before
}

// TestCheckpointsBesideTheWriter: the SQLite writer never checkpoints the WAL at a commit (its
// automatic checkpoint is off), and the database file still learns what was committed, from
// the checkpoint connection beside it.
func TestCheckpointsBesideTheWriter(t *testing.T) {
	s, path, before := filledWAL(t)
	p := s.db.ConnPool.(*pools)
	var auto int
	if err := p.write.QueryRowContext(context.Background(), "PRAGMA wal_autocheckpoint").Scan(&auto); err != nil {
		t.Fatal(err)
	}
	if auto != 0 {
		t.Errorf("the writer checkpoints at a commit past %d pages; want never (0)", auto)
	}
	p.ckpt.checkpoint(restartFrames)
	if n := fileSize(t, path); n < before+4<<20 {
		t.Fatalf("the database file is %d bytes (%d before 8 MB were committed): the checkpoint did not write the WAL back", n, before)
	}
}

// TestWALStartsOver: past its restart length the WAL is copied back and restarted in the
// writer's turn, while a reader goes on reading, so it does not grow without end beside a
// writer that never stops (a PASSIVE checkpoint alone never starts it over): the next write
// begins at its start. A restart that a reader holds up is tried again at the next
// checkpoint. The writer keeps at most walKeep bytes of its file.
func TestWALStartsOver(t *testing.T) {
	s, _, _ := filledWAL(t)
	stop := make(chan struct{})
	defer close(stop)
	go func() { // a reader that never stops
		for {
			select {
			case <-stop:
				return
			default:
				var n int64
				_ = s.db.Raw("SELECT count(*) FROM filler WHERE rowid = 1").Scan(&n).Error
			}
		}
	}()
	c := s.db.ConnPool.(*pools).ckpt
	for tries := 0; walFrames(t, c) > 64; tries++ {
		if tries == 100 {
			t.Fatalf("after 100 checkpoints the WAL is still %d pages long: it never started over", walFrames(t, c))
		}
		c.checkpoint(64)
		if err := s.db.Exec("INSERT INTO filler VALUES (x'00')").Error; err != nil { // the write that starts it over
			t.Fatal(err)
		}
	}
	var keep int64
	if err := s.db.ConnPool.(*pools).write.QueryRowContext(context.Background(), "PRAGMA journal_size_limit").Scan(&keep); err != nil || keep != walKeep {
		t.Errorf("the writer's journal_size_limit = %d (%v), want %d", keep, err, walKeep)
	}
}

// walFrames is how many pages long the WAL is, as a PASSIVE checkpoint reports it.
func walFrames(t *testing.T, c *checkpoints) int {
	t.Helper()
	var busy, frames, copied int
	if err := c.db.QueryRow("PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied); err != nil {
		t.Fatal(err)
	}
	return frames
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
