package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"kashi/archive"
	"kashi/archive/s3test"
	"kashi/billing"
	"kashi/models"
	"kashi/models/modelstest"
)

// TestRestoreServesTheSameBills issues a month on a server, lets the archive take its bills
// and the night's backup, loses the database, restores it with kashi restore from the
// archive, and reads the same bills from the restored one; kashi archive verify finds them
// all. On SQLite (the file deleted; restore refuses to overwrite one) and on Postgres (the
// database dropped and made again empty; pg_dump's backup loaded with psql).
func TestRestoreServesTheSameBills(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "kashi.db")
		restoreScenario(t, path, "backups/2026/04/kashi-2026-04-01.db", func() {
			for _, f := range []string{path, path + "-wal", path + "-shm"} {
				if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
					t.Fatal(err)
				}
			}
		})
	})
	t.Run("postgres", func(t *testing.T) {
		admin := os.Getenv(modelstest.PGEnv)
		if admin == "" {
			t.Skip(modelstest.PGEnv + " not set")
		}
		var b [6]byte
		rand.Read(b[:])
		name := "restore_" + hex.EncodeToString(b[:])
		db, err := sql.Open("pgx", admin)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		fresh := func() {
			for _, q := range []string{"DROP DATABASE IF EXISTS " + name + " WITH (FORCE)", "CREATE DATABASE " + name} {
				if _, err := db.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
		}
		fresh()
		t.Cleanup(func() { db.Exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)") })
		dsn := regexp.MustCompile(`dbname=\S+`).ReplaceAllString(admin, "dbname="+name)
		restoreScenario(t, dsn, "backups/2026/04/kashi-2026-04-01.sql", fresh)
	})
}

// restoreScenario is TestRestoreServesTheSameBills on the database dsn, whose loss is lose
// and whose backup is backup.
func restoreScenario(t *testing.T, path, backup string, lose func()) {
	g := s3test.Start(t)
	ctx := context.Background()
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	afterMarch := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC) // 08:00 in Shanghai, past the backup's hour
	shanghai, _ := time.LoadLocation("Asia/Shanghai")
	pgDSN := ""
	if models.IsPostgresDSN(path) {
		pgDSN = path
	}
	s, err := models.Open(ctx, path, models.Options{})
	if err != nil {
		t.Fatal(err)
	}
	node := modelstest.Node("n1").A100s(4).Register(t, s, t0.Add(-time.Hour))
	task := modelstest.Task("alpha", "train").GPUs(2).Create(t, s, t0)
	modelstest.Run(t, s, task, node, t0)
	end := t0.Add(2 * time.Hour)
	if err := s.ReportTaskStatus(ctx, node.ID, task.ID, models.TaskReport{State: models.ReportExited, TS: end}, end); err != nil {
		t.Fatal(err)
	}
	if err := s.SetPrice(ctx, models.Price{Spec: "A100-80G", FromMonth: "2026-01", RateFen: 1500, OverflowRateFen: 2500}, t0); err != nil {
		t.Fatal(err)
	}
	before, err := billing.Issue(ctx, s, task.ProjectID, "2026-03", "finance", afterMarch)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"KASHI_ARCHIVE_ENDPOINT": g.Endpoint, "KASHI_ARCHIVE_ACCESS_KEY": s3test.AccessKey,
		"KASHI_ARCHIVE_SECRET_KEY": s3test.SecretKey}
	getenv := func(k string) string { return env[k] }
	af := archiveFlags{Target: "s3://" + g.Bucket + "/kashi", Endpoint: g.Endpoint, AccessKey: s3test.AccessKey, SecretKey: s3test.SecretKey,
		BackupHour: 3, BackupKeep: 30 * 24 * time.Hour}
	cfg, err := af.config()
	if err != nil {
		t.Fatal(err)
	}
	st, _ := archive.Open(*cfg)
	a := archive.New(s, st, archive.Options{Location: shanghai, BackupHour: af.BackupHour, BackupKeep: af.BackupKeep, DSN: pgDSN})
	if err := a.Pass(ctx, afterMarch); err != nil {
		t.Fatal(err)
	}
	if box, err := s.ArchiveQueue(ctx, 10); err != nil || box.Pending+box.Failing != 0 {
		t.Fatalf("outbox after the pass: %+v, %v; want everything arrived", box, err)
	}
	var out bytes.Buffer
	verify := []string{"archive", "verify", "--db", path, "--archive", af.Target}
	if err := run(ctx, verify, getenv, &out, io.Discard); err != nil || !strings.Contains(out.String(), "1 issued bills checked: 0 missing, 0 different") {
		t.Fatalf("kashi archive verify = %v:\n%s", err, out.String())
	}
	s.Close()

	// The server's database is lost.
	lose()
	out.Reset()
	restore := []string{"restore", "--from", af.Target, "--db", path}
	if err := run(ctx, restore, getenv, &out, io.Discard); err != nil || !strings.Contains(out.String(), backup) {
		t.Fatalf("kashi restore = %v:\n%s", err, out.String())
	}
	if pgDSN == "" {
		if err := run(ctx, restore, getenv, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "exists") {
			t.Errorf("kashi restore over a database = %v, want refused", err)
		}
	}
	s, err = models.Open(ctx, path, models.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	after, err := billing.ProjectBill(ctx, s, task.ProjectID, "2026-03", afterMarch.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	var csvBefore, csvAfter bytes.Buffer
	billing.WriteCSV(&csvBefore, []billing.Bill{before})
	billing.WriteCSV(&csvAfter, []billing.Bill{after})
	if after.Issued == nil || after.Issued.SHA256 != before.Issued.SHA256 || csvAfter.String() != csvBefore.String() {
		t.Errorf("the restored bill = %+v, want the issued one (%s) as it downloaded:\n%s\nvs\n%s", after.Issued, before.Issued.SHA256, csvAfter.String(), csvBefore.String())
	}
	out.Reset()
	if err := run(ctx, verify, getenv, &out, io.Discard); err != nil {
		t.Errorf("kashi archive verify on the restored database = %v:\n%s", err, out.String())
	}
}
