package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/api"
)

func TestClientDecodesErrors(t *testing.T) {
	tests := map[string]struct {
		status     int
		body       string
		retryAfter string
		want       *APIError
	}{
		"protocol error with field": {
			status: http.StatusUnprocessableEntity,
			body:   `{"error": "must be between 0 and 100, got 120", "field": "samples[0].util_pct"}`,
			want:   &APIError{Status: 422, Msg: "must be between 0 and 100, got 120", Field: "samples[0].util_pct"},
		},
		"proxy page": {
			status: http.StatusBadGateway,
			body:   "<html>bad gateway</html>\n",
			want:   &APIError{Status: 502, Msg: "<html>bad gateway</html>"},
		},
		"empty body": {
			status: http.StatusServiceUnavailable,
			want:   &APIError{Status: 503, Msg: "Service Unavailable"},
		},
		"load shedding with Retry-After": {
			status:     http.StatusTooManyRequests,
			retryAfter: "30",
			want:       &APIError{Status: 429, Msg: "Too Many Requests", RetryAfter: 30 * time.Second},
		},
		"Retry-After as a date is ignored": {
			status:     http.StatusServiceUnavailable,
			retryAfter: "Wed, 21 Oct 2026 07:28:00 GMT",
			want:       &APIError{Status: 503, Msg: "Service Unavailable"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tc.retryAfter != "" {
					w.Header().Set("Retry-After", tc.retryAfter)
				}
				w.WriteHeader(tc.status)
				io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			c := &Client{BaseURL: srv.URL, Token: "tok"}

			_, err := c.PostSamples(context.Background(), api.SamplesRequest{Samples: []api.Sample{{UUID: "GPU-1"}}})
			got, ok := errors.AsType[*APIError](err)
			if !ok {
				t.Fatalf("PostSamples() = %v, want an *APIError", err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("PostSamples() error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestIsRetryable(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	_, _, netErr := (&Client{BaseURL: closed.URL}).Assignments(context.Background(), nil, 0, "")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, cancelErr := (&Client{BaseURL: closed.URL}).Assignments(cancelled, nil, 0, "")

	tests := map[string]struct {
		err  error
		want bool
	}{
		"nil":                    {err: nil, want: false},
		"400":                    {err: &APIError{Status: 400}, want: false},
		"401":                    {err: &APIError{Status: 401}, want: false},
		"404":                    {err: &APIError{Status: 404}, want: false},
		"422":                    {err: &APIError{Status: 422}, want: false},
		"429":                    {err: &APIError{Status: 429}, want: true},
		"500":                    {err: &APIError{Status: 500}, want: true},
		"wrapped 503":            {err: fmt.Errorf("agent: post samples: %w", &APIError{Status: 503}), want: true},
		"connection refused":     {err: netErr, want: true},
		"cancelled":              {err: cancelErr, want: false},
		"truncated answer":       {err: fmt.Errorf("decode answer: %w", io.ErrUnexpectedEOF), want: true},
		"other error":            {err: errors.New("boom"), want: false},
		"context cancelled bare": {err: context.Canceled, want: false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if got := IsRetryable(tc.err); got != tc.want {
				t.Errorf("IsRetryable(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

// call is one request the recording server saw.
type call struct {
	Method, Path, Auth string
	Body               string
}

func TestClientSendsTokens(t *testing.T) {
	var calls []call
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		calls = append(calls, call{Method: r.Method, Path: r.URL.RequestURI(), Auth: r.Header.Get("Authorization"), Body: string(b)})
		switch r.URL.Path {
		case api.PathRegister:
			json.NewEncoder(w).Encode(api.RegisterResponse{NodeID: 3, Token: "node-secret"})
		case api.PathSamples:
			json.NewEncoder(w).Encode(api.SamplesResponse{Accepted: 1})
		case api.PathAssignments:
			json.NewEncoder(w).Encode(api.AssignmentsResponse{Tasks: []api.Assignment{{TaskID: 42}}})
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	c := &Client{BaseURL: srv.URL + "/"}

	reg, err := c.Register(ctx, "join-secret", api.RegisterRequest{Hostname: "n1", Pool: "a100"})
	if err != nil || reg.NodeID != 3 || c.Token != "node-secret" {
		t.Fatalf("Register() = %+v, %v; token %q, want node 3 and token node-secret", reg, err, c.Token)
	}
	if res, err := c.PostSamples(ctx, api.SamplesRequest{Samples: []api.Sample{{UUID: "GPU-1", TS: t0}}}); err != nil || res.Accepted != 1 {
		t.Fatalf("PostSamples() = %+v, %v, want 1 accepted", res, err)
	}
	as, _, err := c.Assignments(ctx, []int64{7, 9}, 0, "")
	if err != nil || len(as.Tasks) != 1 || as.Tasks[0].TaskID != 42 {
		t.Fatalf("Assignments() = %+v, %v, want task 42", as, err)
	}
	if err := c.TaskStatus(ctx, 42, api.TaskStatusRequest{State: api.TaskExited, TS: t0, ExitCode: 3}); err != nil {
		t.Fatalf("TaskStatus() = %v", err)
	}

	want := []call{
		{Method: "POST", Path: "/api/v1/agent/register", Auth: "Bearer join-secret",
			Body: `{"hostname":"n1","pool":"a100","gpus":null}`},
		{Method: "POST", Path: "/api/v1/agent/samples", Auth: "Bearer node-secret",
			Body: `{"samples":[{"uuid":"GPU-1","ts":"2026-03-01T09:00:00Z","memory_used_mib":0,"util_pct":0,"temp_c":0,"power_w":0}]}`},
		{Method: "GET", Path: "/api/v1/agent/assignments?running=7%2C9", Auth: "Bearer node-secret"},
		{Method: "POST", Path: "/api/v1/agent/tasks/42/status", Auth: "Bearer node-secret",
			Body: `{"state":"exited","ts":"2026-03-01T09:00:00Z","exit_code":3}`},
	}
	if diff := cmp.Diff(want, calls); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}
