package cli

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

	"kashi/api"
)

// Client calls the JSON API with a bearer token.
type Client struct {
	// Server is the base URL, without a trailing slash.
	Server string
	Token  string
	HTTP   *http.Client
	// Lang is the language asked of the server (Accept-Language); "" asks none.
	Lang string
}

// APIError is a 4xx or 5xx answer of the API.
type APIError struct {
	Status int
	Body   api.Error
}

func (e *APIError) Error() string {
	msg := e.Body.Error
	if msg == "" {
		msg = http.StatusText(e.Status)
	}
	if e.Body.Field != "" && !strings.Contains(msg, e.Body.Field) {
		msg = e.Body.Field + ": " + msg
	}
	return fmt.Sprintf("%s (HTTP %d)", msg, e.Status)
}

// code maps an API error to the CLI's exit code.
func (e *APIError) code() int {
	switch e.Status {
	case http.StatusUnauthorized, http.StatusForbidden:
		return ExitAuth
	case http.StatusNotFound:
		return ExitNotFound
	}
	return ExitFailed
}

// send makes one request and returns the answer's body and headers; a 4xx or 5xx becomes an
// ExitError wrapping an *APIError.
func (c *Client) send(ctx context.Context, method, path string, query url.Values, hdr http.Header, body any) ([]byte, http.Header, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, nil, err
		}
		rd = bytes.NewReader(b)
	}
	u := c.Server + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, nil, exitf(ExitUsage, "bad server URL %q: %v", c.Server, err)
	}
	for k, v := range hdr {
		req.Header[k] = v
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	req.Header.Set("Accept", "application/json")
	if c.Lang != "" {
		req.Header.Set("Accept-Language", c.Lang)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, nil, &ExitError{Code: ExitUnreachable, Err: fmt.Errorf("cannot reach %s: %w", c.Server, err)}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, &ExitError{Code: ExitUnreachable, Err: fmt.Errorf("%s %s: %w", method, path, err)}
	}
	if resp.StatusCode >= 400 {
		ae := &APIError{Status: resp.StatusCode}
		if json.Unmarshal(b, &ae.Body) != nil || ae.Body.Error == "" {
			ae.Body.Error = strings.TrimSpace(string(b))
			if len(ae.Body.Error) > 200 || strings.HasPrefix(ae.Body.Error, "<") {
				ae.Body.Error = ""
			}
		}
		return nil, nil, &ExitError{Code: ae.code(), Err: ae}
	}
	return b, resp.Header, nil
}

// get fetches path and decodes its JSON into out.
func (c *Client) get(ctx context.Context, path string, query url.Values, out any) error {
	return c.call(ctx, http.MethodGet, path, query, nil, nil, out)
}

// getNow is get that also returns the server's clock: its Kashi-Now header, else its Date
// header, else the local clock (a server too old to say).
func (c *Client) getNow(ctx context.Context, path string, query url.Values, out any) (time.Time, error) {
	b, hdr, err := c.send(ctx, http.MethodGet, path, query, nil, nil)
	if err != nil {
		return time.Time{}, err
	}
	if err := json.Unmarshal(b, out); err != nil {
		return time.Time{}, fmt.Errorf("GET %s: unexpected answer: %w", path, err)
	}
	if now, err := time.Parse(time.RFC3339Nano, hdr.Get(api.HeaderNow)); err == nil {
		return now, nil
	}
	if now, err := http.ParseTime(hdr.Get("Date")); err == nil {
		return now, nil
	}
	return time.Now(), nil
}

// call makes a request with headers and a JSON body (nil for none) and decodes the answer into out.
func (c *Client) call(ctx context.Context, method, path string, query url.Values, hdr http.Header, body, out any) error {
	b, _, err := c.send(ctx, method, path, query, hdr, body)
	if err != nil {
		return err
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s %s: unexpected answer: %w", method, path, err)
	}
	return nil
}
