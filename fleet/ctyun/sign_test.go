package ctyun

import (
	"net/http/httptest"
	"net/url"
	"regexp"
	"testing"
	"time"
)

// TestSignatureVector checks the signer against a vector computed apart from this code,
// with openssl:
//
//	kt=$(printf 20240102T150405Z | openssl dgst -sha256 -hmac sk-test-secret -hex)
//	ka=$(printf ak-test-id | openssl dgst -sha256 -mac HMAC -macopt hexkey:$kt -hex)
//	kd=$(printf 20240102 | openssl dgst -sha256 -mac HMAC -macopt hexkey:$ka -hex)
//	printf 'ctyun-eop-request-id:<id>\neop-date:<date>\n\nazName=cn-gz1-a&regionID=r+1\n<hex sha256 of body>' |
//	  openssl dgst -sha256 -mac HMAC -macopt hexkey:$kd -binary | base64
func TestSignatureVector(t *testing.T) {
	c := Credentials{AK: "ak-test-id", SK: "sk-test-secret"}
	q := url.Values{"regionID": {"r 1"}, "azName": {"cn-gz1-a"}}
	got := c.Signature("20240102T150405Z", "123e4567-e89b-12d3-a456-426614174000", q, []byte(`{"regionID":"r1"}`))
	want := "ak-test-id Headers=ctyun-eop-request-id;eop-date Signature=MlM9UbfiVs8oBUZmeYNi7iShRyC7G+xYW4SG5EQG0YM="
	if got != want {
		t.Errorf("Signature(...) = %q, want %q", got, want)
	}
}

func TestSignSetsHeaders(t *testing.T) {
	c := Credentials{AK: "ak", SK: "sk"}
	r := httptest.NewRequest("GET", "https://api.example/v4/x?b=2&a=1", nil)
	c.sign(r, nil, time.Date(2024, 1, 2, 7, 4, 5, 0, time.UTC))
	if got := r.Header.Get(headerDate); got != "20240102T150405Z" {
		t.Errorf("%s = %q, want 20240102T150405Z", headerDate, got)
	}
	id := r.Header.Get(headerRequestID)
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(id) {
		t.Errorf("%s = %q, want a version 4 UUID", headerRequestID, id)
	}
	if got, want := r.Header.Get(headerAuth), c.Signature("20240102T150405Z", id, r.URL.Query(), nil); got != want {
		t.Errorf("%s = %q, want %q", headerAuth, got, want)
	}
	if got := (Credentials{AK: "ak", SK: "secret-value"}).String(); regexp.MustCompile("secret").MatchString(got) {
		t.Errorf("Credentials.String() = %q shows the secret", got)
	}
}

// The eop-date is Beijing time whatever zone the server runs in (TZ=America/New_York, UTC,
// Asia/Shanghai): the same instant signs the same date.
func TestSignDateIgnoresServerZone(t *testing.T) {
	at := time.Date(2024, 1, 1, 20, 30, 0, 0, time.UTC) // 04:30 on 2 January in Beijing
	saved := time.Local
	t.Cleanup(func() { time.Local = saved })
	for _, zone := range []*time.Location{time.FixedZone("EST", -5*60*60), time.UTC, time.FixedZone("CST", 8*60*60)} {
		time.Local = zone
		r := httptest.NewRequest("GET", "https://api.example/v4/x", nil)
		Credentials{AK: "ak", SK: "sk"}.sign(r, nil, at.In(time.Local))
		if got := r.Header.Get(headerDate); got != "20240102T043000Z" {
			t.Errorf("TZ %s: %s = %q, want 20240102T043000Z", zone, headerDate, got)
		}
	}
}
