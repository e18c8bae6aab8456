package archive

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// Config is where the archive is and how to reach it. The keys are never logged or shown.
type Config struct {
	// Endpoint is the store's URL, https://host[:port] (http:// for a store on loopback).
	Endpoint string
	Region   string
	// Bucket and Prefix: every object's key starts with Prefix + "/" (Prefix may be empty).
	Bucket, Prefix       string
	AccessKey, SecretKey string
}

// ParseTarget reads s3://bucket/prefix into bucket and prefix.
func ParseTarget(target string) (bucket, prefix string, err error) {
	rest, ok := strings.CutPrefix(target, "s3://")
	if !ok {
		return "", "", fmt.Errorf("archive: %q is not s3://bucket/prefix", target)
	}
	bucket, prefix, _ = strings.Cut(rest, "/")
	if bucket == "" {
		return "", "", fmt.Errorf("archive: %q names no bucket", target)
	}
	return bucket, strings.Trim(prefix, "/"), nil
}

// Target is the archive's place as s3://bucket/prefix.
func (c Config) Target() string { return strings.TrimSuffix("s3://"+c.Bucket+"/"+c.Prefix, "/") }

// Store is a bucket of an S3-compatible store, through minio-go (which signs the requests).
type Store struct {
	cl     *minio.Client
	bucket string
	prefix string
}

// Open checks cfg and makes the store's client; it does not reach the store.
func Open(cfg Config) (*Store, error) {
	u, err := url.Parse(cfg.Endpoint)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("archive: the endpoint %q is not an http(s)://host URL", cfg.Endpoint)
	}
	if cfg.Bucket == "" {
		return nil, errors.New("archive: no bucket")
	}
	if cfg.AccessKey == "" || cfg.SecretKey == "" {
		return nil, errors.New("archive: no access key and secret key")
	}
	cl, err := minio.New(u.Host, &minio.Options{
		Creds:  credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, ""),
		Secure: u.Scheme == "https", Region: cfg.Region,
		// Path-style works with every S3-compatible store; virtual-host style needs DNS.
		BucketLookup: minio.BucketLookupPath,
		// The outbox retries with its own back-off; a request is tried twice here.
		MaxRetries: 2,
	})
	if err != nil {
		return nil, fmt.Errorf("archive: %w", err)
	}
	return &Store{cl: cl, bucket: cfg.Bucket, prefix: strings.Trim(cfg.Prefix, "/")}, nil
}

// key is the object's full key for a key under the prefix.
func (s *Store) key(k string) string {
	if s.prefix == "" {
		return k
	}
	return s.prefix + "/" + k
}

// Versioning turns the bucket's versioning on where the store has it and says whether it
// is on; a store without it answers an error and false.
func (s *Store) Versioning(ctx context.Context) (bool, error) {
	v, err := s.cl.GetBucketVersioning(ctx, s.bucket)
	if err == nil && v.Enabled() {
		return true, nil
	}
	if err := s.cl.EnableVersioning(ctx, s.bucket); err != nil {
		return false, fmt.Errorf("archive: versioning of %s: %w", s.bucket, err)
	}
	return true, nil
}

// opTimeout bounds one request to the store: an upload of a large backup gets longer.
const opTimeout = 2 * time.Minute
