package archive

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
)

// metaSHA256 is the user metadata (x-amz-meta-sha256) that carries an object's SHA-256.
const metaSHA256 = "Sha256"

// ErrTaken is Put's answer when the key holds other bytes: an object is never overwritten.
var ErrTaken = errors.New("archive: the key holds another object")

// Put writes body under key (below the prefix) once: a key that already holds the same
// bytes (an upload that arrived but was not marked) is left as it is, and one that holds
// others is ErrTaken. It returns the object's version in a versioned bucket.
func (s *Store) Put(ctx context.Context, key string, body io.Reader, size int64, sum, contentType string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	k := s.key(key)
	if have, err := s.cl.StatObject(ctx, s.bucket, k, minio.StatObjectOptions{}); err == nil {
		if have.UserMetadata[metaSHA256] == sum {
			return have.VersionID, nil
		}
		return "", fmt.Errorf("%w: %s", ErrTaken, k)
	} else if !isMissing(err) {
		return "", fmt.Errorf("archive: look at %s: %w", k, err)
	}
	info, err := s.cl.PutObject(ctx, s.bucket, k, body, size, minio.PutObjectOptions{ContentType: contentType,
		UserMetadata: map[string]string{metaSHA256: sum}, SendContentMd5: true})
	if err != nil {
		return "", fmt.Errorf("archive: put %s: %w", k, err)
	}
	return info.VersionID, nil
}

// putFile writes the file at path under key once, as Put.
func (s *Store) putFile(ctx context.Context, key, path, contentType string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	size, err := io.Copy(h, f)
	if err != nil {
		return "", err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	return s.Put(ctx, key, f, size, hex.EncodeToString(h.Sum(nil)), contentType)
}

// Get reads the object under key, up to max bytes.
func (s *Store) Get(ctx context.Context, key string, max int64) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, opTimeout)
	defer cancel()
	obj, err := s.cl.GetObject(ctx, s.bucket, s.key(key), minio.GetObjectOptions{})
	if err != nil {
		return nil, fmt.Errorf("archive: get %s: %w", s.key(key), err)
	}
	defer obj.Close()
	var b bytes.Buffer
	if _, err := io.Copy(&b, io.LimitReader(obj, max+1)); err != nil {
		return nil, fmt.Errorf("archive: get %s: %w", s.key(key), err)
	}
	if int64(b.Len()) > max {
		return nil, fmt.Errorf("archive: %s is larger than %d bytes", s.key(key), max)
	}
	return b.Bytes(), nil
}

// getFile copies the object under key to a new file at path.
func (s *Store) getFile(ctx context.Context, key, path string) error {
	if err := s.cl.FGetObject(ctx, s.bucket, s.key(key), path, minio.GetObjectOptions{}); err != nil {
		return fmt.Errorf("archive: get %s: %w", s.key(key), err)
	}
	return nil
}

// object is a listed object: its key below the prefix, when it was written, its version.
type object struct {
	Key       string
	At        time.Time
	VersionID string
}

// list returns the objects under folder (below the prefix), by key; with versions, every
// version of each.
func (s *Store) list(ctx context.Context, folder string, versions bool) ([]object, error) {
	var out []object
	for o := range s.cl.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: s.key(folder) + "/", Recursive: true, WithVersions: versions}) {
		if o.Err != nil {
			return nil, fmt.Errorf("archive: list %s: %w", s.key(folder), o.Err)
		}
		if o.IsDeleteMarker && !versions {
			continue
		}
		out = append(out, object{Key: s.rel(o.Key), At: o.LastModified, VersionID: o.VersionID})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// remove deletes one version of the object under key (its only one, when versionID is "").
func (s *Store) remove(ctx context.Context, key, versionID string) error {
	if err := s.cl.RemoveObject(ctx, s.bucket, s.key(key), minio.RemoveObjectOptions{VersionID: versionID}); err != nil {
		return fmt.Errorf("archive: remove %s: %w", s.key(key), err)
	}
	return nil
}

// rel is a full key below the prefix.
func (s *Store) rel(k string) string {
	if s.prefix == "" {
		return k
	}
	return strings.TrimPrefix(k, s.prefix+"/")
}

// isMissing reports whether err says the object is not there.
func isMissing(err error) bool {
	var er minio.ErrorResponse
	return errors.As(err, &er) && (er.Code == minio.NoSuchKey || er.StatusCode == http.StatusNotFound)
}
