package pools

import "time"

// ArchiveData is the admins' archive page: where records are archived, the outbox's counts
// and the uploads not arrived yet.
type ArchiveData struct {
	Now time.Time
	// Target is s3://bucket/prefix, "" when no archive is configured.
	Target                    string
	Pending, Failing, Arrived int64
	LastArrived               *time.Time
	Waiting                   []ArchiveUploadView
}

// ArchiveUploadView is an upload not arrived yet: its kind of record (models.ArchiveBills,
// …), its key, its size, how often it failed, when it is tried next and why it last failed.
type ArchiveUploadView struct {
	Kind, Key string
	Size      int64
	Attempts  int
	NextAt    time.Time
	LastError string
	Since     time.Time
}
