// Package archive keeps Kashi's records in S3-compatible object storage (China Telecom
// Cloud's object storage, AWS S3, MinIO, Ceph), as files a person can open under
// <prefix>/<kind>/<yyyy>/<mm>/…: issued bills with the month's ledger lines, template and pool
// settings versions, approvals, task plans per day and a nightly database backup. Records go
// through an outbox in the database (models.ArchiveUpload) that a loop empties with retries
// and back-off, so no request waits for the store and an outage loses nothing; objects are
// written once, under a key of their own. Verify reads the archived bills back; Restore
// rebuilds a database from the latest backup.
package archive
