package archive

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"

	"kashi/models"
)

// DB is what the archive needs of the database.
type DB interface {
	EnqueueArchive(ctx context.Context, ups []models.ArchiveUpload, now time.Time) (int, error)
	ArchiveMark(ctx context.Context, kind string) (int64, time.Time, error)
	ArchiveDue(ctx context.Context, now time.Time, limit int) ([]models.ArchiveUpload, error)
	ArchiveArrived(ctx context.Context, id int64, versionID string, now time.Time) error
	ArchiveFailed(ctx context.Context, id int64, why string, next time.Time) error
	IssuedBillsAfter(ctx context.Context, after int64, limit int) ([]models.IssuedBill, error)
	IssuedBills(ctx context.Context, month string) ([]models.IssuedBill, error)
	ProjectNames(ctx context.Context) (map[int64]string, error)
	TemplateVersionsAfter(ctx context.Context, after int64, limit int) ([]models.TemplateVersionOf, error)
	PoolVersionsAfter(ctx context.Context, after int64, limit int) ([]models.PoolVersionOf, error)
	DecisionsSince(ctx context.Context, since time.Time, limit int) ([]models.DecisionOf, error)
	TaskPlansEnded(ctx context.Context, from, to time.Time) ([]models.TaskPlan, error)
	FirstTaskEnd(ctx context.Context) (time.Time, error)
	Backup(ctx context.Context, path string) error
}

// Options are the archive's settings besides where it is.
type Options struct {
	// Location is where days and months of the layout are reckoned (the billing time zone).
	Location *time.Location
	// BackupHour is the hour of the day (in Location) from which the day's backup is made;
	// BackupKeep how long backups are kept, zero for no backups.
	BackupHour int
	BackupKeep time.Duration
	// DSN is the Postgres database pg_dump backs up ("" with SQLite).
	DSN    string
	Logger *slog.Logger
}

// Archiver fills the outbox from the database and empties it into the store.
type Archiver struct {
	db    DB
	store *Store
	loc   *time.Location
	opt   Options
	log   *slog.Logger
	// versioned is set once the first pass asked the bucket to keep versions.
	versioned bool
}

// New is an archiver of db's records into store.
func New(db DB, store *Store, opt Options) *Archiver {
	if opt.Location == nil {
		opt.Location = time.UTC
	}
	if opt.Logger == nil {
		opt.Logger = slog.New(slog.DiscardHandler)
	}
	return &Archiver{db: db, store: store, loc: opt.Location, opt: opt, log: opt.Logger}
}

// Back-off of a failed upload: base doubled at each failure up to maxBackoff, each wait
// drawn between half and all of it (jitter), so uploads failed together do not all come
// back at once.
const (
	baseBackoff = 30 * time.Second
	maxBackoff  = time.Hour
)

// backoff is the wait after the attempts-th failure (1 for the first).
func backoff(attempts int) time.Duration {
	d := maxBackoff
	if attempts < 12 {
		d = min(baseBackoff<<(attempts-1), maxBackoff)
	}
	return d/2 + rand.N(d/2+1)
}

// dueBatch is how many uploads one pass tries.
const dueBatch = 100

// Upload tries the uploads due at now, in order; one that fails is counted, logged and
// waits its back-off (the others are still tried: a large backup failing holds back no
// bill). It returns how many arrived and failed; its error is the database's.
func (a *Archiver) Upload(ctx context.Context, now time.Time) (arrived, failed int, err error) {
	due, err := a.db.ArchiveDue(ctx, now, dueBatch)
	if err != nil {
		return 0, 0, err
	}
	for _, u := range due {
		version, err := a.put(ctx, u, now)
		if err == nil {
			if err := a.db.ArchiveArrived(ctx, u.ID, version, now); err != nil {
				return arrived, failed, err
			}
			arrived++
			continue
		}
		if ctx.Err() != nil {
			return arrived, failed, ctx.Err()
		}
		failed++
		a.log.Warn("archive upload failed", "key", u.Key, "attempt", u.Attempts+1, "err", err)
		if err := a.db.ArchiveFailed(ctx, u.ID, err.Error(), now.Add(backoff(u.Attempts+1))); err != nil {
			return arrived, failed, err
		}
	}
	return arrived, failed, nil
}

// Pass is one pass of the archive's loop: Collect, then Upload. The first pass turns the
// bucket's versioning on where the store has it.
func (a *Archiver) Pass(ctx context.Context, now time.Time) error {
	if !a.versioned {
		a.versioned = true
		if on, err := a.store.Versioning(ctx); !on {
			a.log.Warn("archive: the bucket keeps no versions; every object still has a key of its own and is written once", "err", err)
		}
	}
	if _, err := a.Collect(ctx, now); err != nil {
		return err
	}
	_, _, err := a.Upload(ctx, now)
	return err
}

// put writes one upload; a backup is made first.
func (a *Archiver) put(ctx context.Context, u models.ArchiveUpload, now time.Time) (string, error) {
	if u.Kind == models.ArchiveBackups {
		return a.backup(ctx, u, now)
	}
	return a.store.Put(ctx, u.Key, bytes.NewReader(u.Body), int64(len(u.Body)), u.SHA256, u.ContentType)
}

// backups is the day's backup once it is past BackupHour and the day has none yet.
func (a *Archiver) backups(ctx context.Context, now time.Time) ([]models.ArchiveUpload, error) {
	last, _, err := a.db.ArchiveMark(ctx, models.ArchiveBackups)
	if err != nil {
		return nil, err
	}
	day := dayOf(now, a.loc)
	id := idOfDay(day)
	if a.opt.BackupKeep <= 0 || id <= last || now.In(a.loc).Hour() < a.opt.BackupHour {
		return nil, nil
	}
	ext, typ := "db", typeDB
	if a.opt.DSN != "" {
		ext, typ = "sql", typeSQL
	}
	key := fmt.Sprintf("%s/kashi-%s.%s", folder(models.ArchiveBackups, day, a.loc), day.Format(time.DateOnly), ext)
	return []models.ArchiveUpload{{Kind: models.ArchiveBackups, Key: key, SourceID: id, SourceAt: day,
		ContentType: typ}}, nil
}

// backup makes the database's backup in a temporary folder, writes it, and deletes the
// backups older than BackupKeep.
func (a *Archiver) backup(ctx context.Context, u models.ArchiveUpload, now time.Time) (string, error) {
	dir, err := os.MkdirTemp("", "kashi-backup-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "backup")
	if err := a.db.Backup(ctx, path); errors.Is(err, models.ErrNotSQLite) {
		err = pgDump(ctx, a.opt.DSN, path)
		if err != nil {
			return "", err
		}
	} else if err != nil {
		return "", err
	}
	version, err := a.store.putFile(ctx, u.Key, path, u.ContentType)
	if err != nil {
		return "", err
	}
	if err := a.prune(ctx, now); err != nil {
		a.log.Warn("archive: old backups", "err", err) // the backup arrived; pruning comes again tomorrow
	}
	return version, nil
}

// pgDump writes a plain SQL dump of the Postgres database dsn to path, with pg_dump.
func pgDump(ctx context.Context, dsn, path string) error {
	bin, err := exec.LookPath("pg_dump")
	if err != nil {
		return errors.New("archive: pg_dump is not installed on this server (Debian: postgresql-client), so Postgres is not backed up")
	}
	out, err := exec.CommandContext(ctx, bin, "--no-owner", "--no-privileges", "--file", path, "--dbname", dsn).CombinedOutput()
	if err != nil {
		return fmt.Errorf("archive: pg_dump: %w: %s", err, bytes.TrimSpace(out))
	}
	return nil
}

// backupDay is the day of the backup under key (…/kashi-yyyy-mm-dd.ext), in loc.
func backupDay(key string, loc *time.Location) (time.Time, bool) {
	base := path.Base(key)
	day, err := time.ParseInLocation(time.DateOnly, strings.TrimPrefix(strings.TrimSuffix(base, path.Ext(base)), "kashi-"), loc)
	return day, err == nil
}

// prune deletes every version of the backups of days before now less BackupKeep.
func (a *Archiver) prune(ctx context.Context, now time.Time) error {
	objs, err := a.store.list(ctx, models.ArchiveBackups, true)
	if err != nil {
		return err
	}
	for _, o := range objs {
		if day, ok := backupDay(o.Key, a.loc); ok && day.Before(now.Add(-a.opt.BackupKeep)) {
			if err := a.store.remove(ctx, o.Key, o.VersionID); err != nil {
				return err
			}
		}
	}
	return nil
}
