package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"kashi/api"
)

// Client calls the server's agent API. It is not safe for concurrent use while Register runs,
// since Register replaces Token.
type Client struct {
	// BaseURL is the server's address, e.g. "https://kashi.example.com".
	BaseURL string
	// Token is the node's bearer token, set by Register.
	Token string
	// HTTP sends the requests; nil means http.DefaultClient. Its transport keeps connections
	// alive between requests (Go's default transport does).
	HTTP *http.Client
	// LongPoll sends the assignments requests that ask the server to wait; nil means HTTP.
	// Its timeout must leave room for the wait.
	LongPoll *http.Client
}

// Polled is what an assignments answer says besides the list: its ETag, and whether the
// server honoured the wait asked (an older server answers at once and sends no such header).
type Polled struct {
	ETag   string
	Waited bool
}

// APIError is a non-2xx answer of the server.
type APIError struct {
	Status int
	Msg    string
	Field  string
	// RetryAfter is the wait a 429 or 503 answer asked for in its Retry-After header.
	RetryAfter time.Duration
}

// Error describes the answer.
func (e *APIError) Error() string {
	s := fmt.Sprintf("server answered %d %s: %s", e.Status, http.StatusText(e.Status), e.Msg)
	if e.Field != "" {
		s += " (field " + e.Field + ")"
	}
	return s
}

// IsRetryable reports whether a call that failed with err may succeed if sent again: network
// failures, 5xx and 429 answers. Other 4xx answers are permanent, and so is a cancelled call.
func IsRetryable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	if apiErr, ok := errors.AsType[*APIError](err); ok {
		return apiErr.Status >= 500 || apiErr.Status == http.StatusTooManyRequests
	}
	_, isNet := errors.AsType[net.Error](err)
	return isNet || errors.Is(err, io.ErrUnexpectedEOF)
}

// isUnauthorized reports whether err is a 401 answer: the node's token is no longer valid.
func isUnauthorized(err error) bool {
	apiErr, ok := errors.AsType[*APIError](err)
	return ok && apiErr.Status == http.StatusUnauthorized
}

// Register announces the node, authenticating with joinToken, and keeps the node token the
// server returns for the later calls.
func (c *Client) Register(ctx context.Context, joinToken string, req api.RegisterRequest) (api.RegisterResponse, error) {
	var resp api.RegisterResponse
	var hdr http.Header
	if c.Token != "" { // registered before: prove this node is the one that holds the hostname
		hdr = http.Header{api.HeaderNodeToken: {c.Token}}
	}
	if err := c.doWith(ctx, http.MethodPost, api.PathRegister, joinToken, hdr, req, &resp); err != nil {
		return api.RegisterResponse{}, fmt.Errorf("agent: register: %w", err)
	}
	c.Token = resp.Token
	return resp, nil
}

// PostSamples sends one batch of samples, at most api.MaxSamplesPerBatch.
func (c *Client) PostSamples(ctx context.Context, req api.SamplesRequest) (api.SamplesResponse, error) {
	var resp api.SamplesResponse
	err := c.do(ctx, http.MethodPost, api.PathSamples, c.Token, req, &resp)
	if err != nil {
		return api.SamplesResponse{}, fmt.Errorf("agent: post %d samples: %w", len(req.Samples), err)
	}
	return resp, nil
}

// Assignments fetches the tasks the node should be running now, telling the server which
// tasks run on the node. With wait above zero it is a long poll: the server answers when the
// list differs from the one whose ETag is etag, or after wait.
func (c *Client) Assignments(ctx context.Context, running []int64, wait time.Duration, etag string) (api.AssignmentsResponse, Polled, error) {
	var resp api.AssignmentsResponse
	q := url.Values{}
	if len(running) > 0 {
		ids := make([]string, len(running))
		for i, id := range running {
			ids[i] = strconv.FormatInt(id, 10)
		}
		q.Set(api.QueryRunning, strings.Join(ids, ","))
	}
	hc, hdr := c.HTTP, http.Header{}
	if wait > 0 {
		q.Set(api.QueryWait, wait.String())
		if etag != "" {
			hdr.Set("If-None-Match", etag)
		}
		if c.LongPoll != nil {
			hc = c.LongPoll
		}
	}
	path := api.PathAssignments
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	got, err := c.send(ctx, hc, http.MethodGet, path, c.Token, hdr, nil, &resp)
	if err != nil {
		return api.AssignmentsResponse{}, Polled{}, fmt.Errorf("agent: assignments: %w", err)
	}
	return resp, Polled{ETag: got.Get("ETag"), Waited: wait > 0 && got.Get(api.HeaderAssignmentsWait) != ""}, nil
}

// TaskStatus reports a change in a task's process.
func (c *Client) TaskStatus(ctx context.Context, taskID int64, req api.TaskStatusRequest) error {
	path := api.PathTaskStatus + strconv.FormatInt(taskID, 10) + "/status"
	if err := c.do(ctx, http.MethodPost, path, c.Token, req, nil); err != nil {
		return fmt.Errorf("agent: task %d status %s: %w", taskID, req.State, err)
	}
	return nil
}

// do sends one JSON request and decodes a 2xx answer into out (when not nil) or any other
// answer into an *APIError.
func (c *Client) do(ctx context.Context, method, path, bearer string, in, out any) error {
	return c.doWith(ctx, method, path, bearer, nil, in, out)
}

// doWith is do with extra request headers.
func (c *Client) doWith(ctx context.Context, method, path, bearer string, hdr http.Header, in, out any) error {
	_, err := c.send(ctx, c.HTTP, method, path, bearer, hdr, in, out)
	return err
}

// send is doWith through hc (nil: http.DefaultClient), returning the answer's headers.
func (c *Client) send(ctx context.Context, hc *http.Client, method, path, bearer string, hdr http.Header, in, out any) (http.Header, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, fmt.Errorf("encode request: %w", err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimSuffix(c.BaseURL, "/")+path, body)
	if err != nil {
		return nil, err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", "Bearer "+bearer)
	for k, vs := range hdr {
		req.Header[k] = vs
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	rd := io.LimitReader(resp.Body, api.MaxBodyBytes)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		apiErr := decodeAPIError(resp.StatusCode, rd)
		apiErr.RetryAfter = retryAfter(resp)
		return resp.Header, apiErr
	}
	if out == nil {
		_, err = io.Copy(io.Discard, rd)
		return resp.Header, err
	}
	if err := json.NewDecoder(rd).Decode(out); err != nil {
		return resp.Header, fmt.Errorf("decode answer: %w", err)
	}
	return resp.Header, nil
}

// retryAfter reads the Retry-After header of a 429 or 503 answer, in seconds (the form
// servers use for load shedding); 0 when absent or in another form.
func retryAfter(resp *http.Response) time.Duration {
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode != http.StatusServiceUnavailable {
		return 0
	}
	secs, err := strconv.Atoi(strings.TrimSpace(resp.Header.Get("Retry-After")))
	if err != nil || secs <= 0 {
		return 0
	}
	return time.Duration(secs) * time.Second
}

// decodeAPIError reads a non-2xx answer. A body that is not a api.Error (a proxy's HTML
// page) is kept, shortened, as the message.
func decodeAPIError(status int, body io.Reader) *APIError {
	b, _ := io.ReadAll(io.LimitReader(body, 4<<10))
	var e api.Error
	if json.Unmarshal(b, &e) == nil && e.Error != "" {
		return &APIError{Status: status, Msg: e.Error, Field: e.Field}
	}
	msg := strings.TrimSpace(string(b))
	if len(msg) > 200 {
		msg = strings.ToValidUTF8(msg[:200], "")
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	return &APIError{Status: status, Msg: msg}
}
