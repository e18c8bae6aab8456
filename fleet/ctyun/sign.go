package ctyun

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// The headers of the EOP signature (OpenAPI v4).
const (
	headerRequestID = "ctyun-eop-request-id"
	headerDate      = "Eop-date"
	headerAuth      = "Eop-Authorization"
)

// eopDateLayout formats the eop-date header: local time with a literal Z, as the EOP
// gateway expects.
const eopDateLayout = "20060102T150405Z"

// Credentials are an access key pair. String never shows the secret.
type Credentials struct {
	AK, SK string
}

// String shows the access key only.
func (c Credentials) String() string { return "ctyun AK " + c.AK }

// Signature computes the Eop-Authorization header of one request: date is the eop-date
// header, requestID the ctyun-eop-request-id header, query the request's query and body
// its body (empty for a GET).
//
// The string to sign is "ctyun-eop-request-id:<id>\neop-date:<date>\n", a newline, the
// query sorted by key as k=v&k2=v2 with values URL-encoded, a newline, and the hex SHA-256
// of the body. The key is HMAC-SHA256 chained over SK → eop-date → AK → eop-date[:8]; the
// signature is the base64 of HMAC-SHA256(key, string to sign).
func (c Credentials) Signature(date, requestID string, query url.Values, body []byte) string {
	sum := sha256.Sum256(body)
	toSign := headerRequestID + ":" + requestID + "\neop-date:" + date + "\n\n" +
		canonicalQuery(query) + "\n" + hex.EncodeToString(sum[:])
	kTime := hmacSHA256([]byte(c.SK), date)
	kAk := hmacSHA256(kTime, c.AK)
	kDate := hmacSHA256(kAk, date[:min(8, len(date))])
	sig := base64.StdEncoding.EncodeToString(hmacSHA256(kDate, toSign))
	return c.AK + " Headers=" + headerRequestID + ";eop-date Signature=" + sig
}

// sign sets the three EOP headers on r, whose body is body, at now.
func (c Credentials) sign(r *http.Request, body []byte, now time.Time) {
	date := now.Local().Format(eopDateLayout)
	id := newUUID()
	r.Header.Set(headerRequestID, id)
	r.Header.Set(headerDate, date)
	r.Header.Set(headerAuth, c.Signature(date, id, r.URL.Query(), body))
}

// canonicalQuery is q sorted by key as k=v joined by &, values URL-encoded.
func canonicalQuery(q url.Values) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(q)) {
		for _, v := range q[k] {
			parts = append(parts, k+"="+url.QueryEscape(v))
		}
	}
	return strings.Join(parts, "&")
}

func hmacSHA256(key []byte, msg string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}

// newUUID is a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
