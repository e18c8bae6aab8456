package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"kashi/archive"
	"kashi/cli"
	"kashi/models"
)

// archiveFlags are the archive's settings, shared by serve, archive verify and restore.
// The keys are never logged.
type archiveFlags struct {
	Target, Endpoint, Region string
	AccessKey, SecretKey     string
	// BackupHour and BackupKeep are the nightly backup's hour and how long backups are kept.
	BackupHour int
	BackupKeep time.Duration
}

// define adds the archive's flags to f; with backups, the backup's too.
func (a *archiveFlags) define(f *flags, backups bool) {
	f.String(&a.Target, "archive", "", "where records are archived: s3://bucket/prefix on an S3-compatible store (none: no archive)")
	f.String(&a.Endpoint, "archive-endpoint", "", "the store's URL, e.g. https://zos.ctyun.cn (http:// only on loopback)")
	f.String(&a.Region, "archive-region", "", "the store's region, when it asks for one")
	f.String(&a.AccessKey, "archive-access-key", "", "the store's access key")
	f.Secret(&a.SecretKey, "archive-secret-key", "the store's secret key")
	if backups {
		f.Int(&a.BackupHour, "archive-backup-hour", 3, "the hour of the day (0-23, in --time-zone) from which the nightly database backup is made")
		f.Duration(&a.BackupKeep, "archive-backup-keep", 30*24*time.Hour, "how long database backups are kept in the archive (0: no backups)")
	}
}

// config is the archive's configuration, nil when no --archive is given.
func (a archiveFlags) config() (*archive.Config, error) {
	if a.Target == "" {
		return nil, nil
	}
	bucket, prefix, err := archive.ParseTarget(a.Target)
	if err != nil {
		return nil, fmt.Errorf("--archive: %w", err)
	}
	if a.BackupHour < 0 || a.BackupHour > 23 {
		return nil, fmt.Errorf("--archive-backup-hour must be between 0 and 23, got %d", a.BackupHour)
	}
	if a.BackupKeep < 0 || a.BackupKeep > 10*365*24*time.Hour {
		return nil, fmt.Errorf("--archive-backup-keep must be between 0 and 10 years, got %s", a.BackupKeep)
	}
	c := &archive.Config{Endpoint: a.Endpoint, Region: a.Region, Bucket: bucket, Prefix: prefix, AccessKey: a.AccessKey, SecretKey: a.SecretKey}
	if _, err := archive.Open(*c); err != nil {
		return nil, fmt.Errorf("--archive: %w", err)
	}
	return c, nil
}

const archiveUsage = `usage: kashi archive verify --db DB --archive s3://bucket/prefix --archive-endpoint URL
       kashi restore --from s3://bucket/prefix --archive-endpoint URL --db NEW-DB`

// runArchive handles `kashi archive verify`: every issued bill read back from the archive
// and its SHA-256 compared with the one recorded at issue.
func runArchive(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "verify" {
		return &cli.ExitError{Code: cli.ExitUsage, Err: errors.New(archiveUsage)}
	}
	var db string
	var af archiveFlags
	f := newFlags("archive verify", getenv, stderr)
	f.String(&db, "db", "kashi.db", "SQLite file, or a postgres:// DSN")
	af.define(f, false)
	if err := f.parse(args[1:]); err != nil {
		return err
	}
	cfg, err := af.config()
	if err != nil || cfg == nil {
		return errOr(err, errors.New("--archive is required"))
	}
	st, _ := archive.Open(*cfg)
	store, err := models.Open(ctx, db, models.Options{})
	if err != nil {
		return err
	}
	defer store.Close()
	c, err := archive.Verify(ctx, store, st)
	if err != nil {
		return err
	}
	for _, k := range c.Missing {
		fmt.Fprintln(stdout, "missing  ", k)
	}
	for _, k := range c.Different {
		fmt.Fprintln(stdout, "different", k)
	}
	fmt.Fprintln(stdout, c)
	if !c.OK() {
		return errors.New("the archive does not hold every issued bill as issued")
	}
	return nil
}

// runRestore handles `kashi restore --from s3://…`: a new database from the latest backup.
func runRestore(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	var db string
	var af archiveFlags
	f := newFlags("restore", getenv, stderr)
	f.String(&db, "db", "kashi.db", "the SQLite file to create (it must not exist), or a postgres:// DSN of an empty database")
	f.String(&af.Target, "from", "", "the archive: s3://bucket/prefix")
	af.define(f, false)
	if err := f.parse(args); err != nil {
		return err
	}
	cfg, err := af.config()
	if err != nil || cfg == nil {
		return errOr(err, errors.New("--from s3://bucket/prefix is required"))
	}
	st, _ := archive.Open(*cfg)
	key, err := archive.Restore(ctx, st, db)
	if err != nil {
		return err
	}
	// Opening it checks it and brings its schema up to this Kashi's.
	store, err := models.Open(ctx, db, models.Options{})
	if err != nil {
		return fmt.Errorf("restored %s, but it does not open: %w", key, err)
	}
	store.Close()
	fmt.Fprintf(stdout, "restored %s/%s into %s\n", cfg.Target(), key, dbLabel(db))
	return nil
}

// errOr is err, else otherwise.
func errOr(err, otherwise error) error {
	if err != nil {
		return err
	}
	return otherwise
}
