// Package notify sends Kashi's messages (quota reminders, alerts) to chat and webhook
// channels. Each channel posts one JSON body per message over HTTP.
package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Message is one notification.
type Message struct {
	// Kind is a stable code, e.g. "quota-ends", "budget", "idle-card", "scale-failed".
	Kind    string    `json:"kind"`
	Project string    `json:"project,omitempty"`
	Title   string    `json:"title"`
	Text    string    `json:"text"`
	At      time.Time `json:"at"`
}

// Channel delivers messages somewhere.
type Channel interface {
	Send(ctx context.Context, m Message) error
}

// Webhook posts each message as JSON (the Message fields) to a URL.
type Webhook struct {
	URL    string
	Client *http.Client
}

// Send posts m; a non-2xx answer is an error.
func (w Webhook) Send(ctx context.Context, m Message) error {
	return postJSON(ctx, w.Client, w.URL, m)
}

// postJSON posts body as JSON to url and fails on a non-2xx answer.
func postJSON(ctx context.Context, client *http.Client, url string, body any) error {
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("notify: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("notify: post: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
		return fmt.Errorf("notify: %s answered %s: %s", req.URL.Host, resp.Status, bytes.TrimSpace(msg))
	}
	return nil
}
