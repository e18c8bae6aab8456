package ctyun

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// The headers of the EOP signature (OpenAPI v4).
const (
	headerRequestID = "ctyun-eop-request-id"
	headerDate      = "Eop-date"
	headerAuth      = "Eop-Authorization"
)

// eopDateLayout formats the eop-date header: Beijing time with a literal Z, as the EOP
// gateway expects (ctyun's SDKs format the clock of a machine in China).
const eopDateLayout = "20060102T150405Z"

// eopZone is the eop-date's zone, UTC+8 (China has no daylight saving), whatever the zone
// of the machine Kashi runs on.
var eopZone = time.FixedZone("UTC+8", 8*60*60)

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
	date := now.In(eopZone).Format(eopDateLayout)
	id := uuid.NewString()
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
