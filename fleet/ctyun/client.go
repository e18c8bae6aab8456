package ctyun

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"kashi/fleet"
)

// maxAnswer bounds the size of one answer.
const maxAnswer = 8 << 20

// client makes signed calls to one endpoint.
type client struct {
	creds    Credentials
	endpoint string
	http     *http.Client
	now      func() time.Time
}

// call makes one signed call: a GET with query when in is nil, else a POST of in as JSON.
// It returns the answer's returnObj, or an *APIError.
func call[T any](ctx context.Context, c *client, path string, query url.Values, in any) (T, error) {
	var zero T
	method, body := http.MethodGet, []byte(nil)
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return zero, fmt.Errorf("ctyun: %s: %w", path, err)
		}
		method = http.MethodPost
	}
	u := c.endpoint + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(body))
	if err != nil {
		return zero, fmt.Errorf("ctyun: %s: %w", path, err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	c.creds.sign(req, body, c.now())
	resp, err := c.http.Do(req)
	if err != nil {
		return zero, fmt.Errorf("ctyun: %s: %w", path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return zero, fmt.Errorf("ctyun: %s: read answer: %w", path, err)
	}
	var env envelope[T]
	decodeErr := json.Unmarshal(raw, &env)
	if resp.StatusCode != http.StatusOK || decodeErr != nil || env.StatusCode != statusOK {
		e := &APIError{Call: path, HTTPStatus: resp.StatusCode, Code: env.ErrorCode, RequestID: req.Header.Get(headerRequestID),
			Message: firstOf(env.Message, env.Description, env.Error)}
		if decodeErr != nil && e.Message == "" {
			e.Message = "answer is not JSON: " + clip(string(raw), 200)
		}
		e.Class = classify(resp.StatusCode, e.Code)
		return zero, e
	}
	return env.ReturnObj, nil
}

// Class is the kind of an API failure, which tells the scaling loop what to do.
type Class string

// Classes of API failures.
const (
	// ClassCapacity: the zone has no stock of the flavor; nothing was created.
	ClassCapacity Class = "capacity"
	// ClassQuota: the account's quota (or balance) does not allow more; nothing was created.
	ClassQuota Class = "quota"
	// ClassAuth: the key pair is wrong, or lacks the permission.
	ClassAuth Class = "auth"
	// ClassOther: anything else, such as a bad parameter or a server error.
	ClassOther Class = "other"
)

// APIError is an answer other than success. It never holds the request's headers or body.
type APIError struct {
	// Call is the API path.
	Call       string
	HTTPStatus int
	// Code and Message are the answer's errorCode and message.
	Code, Message string
	// RequestID is the ctyun-eop-request-id sent, for the provider's support.
	RequestID string
	Class     Class
}

func (e *APIError) Error() string {
	return fmt.Sprintf("ctyun: %s: %s (HTTP %d, code %q, request %s): %s", e.Call, e.Class, e.HTTPStatus, e.Code, e.RequestID, e.Message)
}

// Unwrap gives fleet.ErrCapacity for capacity and quota failures (both mean: nothing was
// created, try later), fleet.ErrQuota for quota and fleet.ErrAuth for auth.
func (e *APIError) Unwrap() []error {
	switch e.Class {
	case ClassCapacity:
		return []error{fleet.ErrCapacity}
	case ClassQuota:
		return []error{fleet.ErrQuota, fleet.ErrCapacity}
	case ClassAuth:
		return []error{fleet.ErrAuth}
	}
	return nil
}

// classWords maps words of an errorCode (lower case) to its class, checked in order.
var classWords = []struct {
	word  string
	class Class
}{
	{"quota", ClassQuota}, {"limitexceeded", ClassQuota}, {"balance", ClassQuota},
	{"soldout", ClassCapacity}, {"stock", ClassCapacity}, {"insufficient", ClassCapacity}, {"capacity", ClassCapacity},
	{"signature", ClassAuth}, {"auth", ClassAuth}, {"accesskey", ClassAuth}, {"permission", ClassAuth}, {"forbidden", ClassAuth},
}

// classify names the class of an error answer from its HTTP status and errorCode.
func classify(httpStatus int, code string) Class {
	lc := strings.ToLower(code)
	for _, w := range classWords {
		if strings.Contains(lc, w.word) {
			return w.class
		}
	}
	if httpStatus == http.StatusUnauthorized || httpStatus == http.StatusForbidden {
		return ClassAuth
	}
	return ClassOther
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
