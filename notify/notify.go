// Package notify sends Kashi's messages (quota reminders, alerts, idle-task notices) to chat
// and webhook channels: a generic JSON webhook and the DingTalk, Feishu/Lark and WeCom group
// robots. Each channel posts one JSON body per message over HTTP. Parse builds a channel from
// a configuration string.
package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Message is one notification.
type Message struct {
	// Kind is a stable code, e.g. "quota-ends", "budget", "idle-card", "scale-failed".
	Kind    string `json:"kind"`
	Project string `json:"project,omitempty"`
	Title   string `json:"title"`
	Text    string `json:"text"`
	// At is when it happened, in the zone the message is read in (the server's --time-zone):
	// the footer shows it there, with the zone.
	At time.Time `json:"at"`
	// Link is where in Kashi the message's subject is: a path ("/alerts") that Under makes
	// absolute with the public URL, or an absolute URL. LinkText names it in the message's
	// language; robots show it as the link's words.
	Link     string `json:"link,omitempty"`
	LinkText string `json:"-"`
	// Resolved marks a message that says an alert (every alert of a group) has ended.
	Resolved bool `json:"resolved,omitempty"`
	// Mentions are the people the message asks to act (a task's owner): each robot mentions
	// them by their id in its chat, so the chat tells them; one with no id there is not.
	Mentions []Mention `json:"mentions,omitempty"`
}

// Mention is a person by their ids in the team's chats, any of them empty for none: the
// DingTalk userId (or a mobile number, all digits), the Feishu open_id (ou_…) and the WeCom
// userid. Name is their Kashi user name.
type Mention struct {
	Name     string `json:"name"`
	DingTalk string `json:"dingtalk,omitempty"`
	Feishu   string `json:"feishu,omitempty"`
	WeCom    string `json:"wecom,omitempty"`
}

// Under returns channels that send each message whose Link is a path with the Link under base
// (the --public-url), so that a reader in a chat app, who is not on Kashi's pages, can open
// it. With base empty the channels are returned as they are and links stay paths.
func Under(base string, channels []Channel) []Channel {
	base = strings.TrimSuffix(base, "/")
	if base == "" {
		return channels
	}
	out := make([]Channel, len(channels))
	for i, ch := range channels {
		out[i] = under{base: base, Channel: ch}
	}
	return out
}

// under is a channel whose messages' paths are made absolute under base.
type under struct {
	base string
	Channel
}

// Send sends m with its Link under the base when it is a path.
func (u under) Send(ctx context.Context, m Message) error {
	if strings.HasPrefix(m.Link, "/") {
		m.Link = u.base + m.Link
	}
	return u.Channel.Send(ctx, m)
}

// String names the channel it wraps.
func (u under) String() string { return fmt.Sprint(u.Channel) }

// GoString is String.
func (u under) GoString() string { return u.String() }

// Stamp writes t as messages and pages show a moment: in t's own zone, named,
// "2026-03-02 17:00 CST".
func Stamp(t time.Time) string { return t.Format("2006-01-02 15:04 MST") }

// Channel delivers messages somewhere.
type Channel interface {
	Send(ctx context.Context, m Message) error
}

// maxAnswer is how much of an answer postJSON reads.
const maxAnswer = 64 << 10

// postJSON posts body as JSON to rawURL and returns the answer's body; a non-2xx answer is an
// error. Errors name the host only: a robot's URL carries its access token.
func postJSON(ctx context.Context, client *http.Client, rawURL string, body any) ([]byte, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	return post(ctx, client, rawURL, b, nil)
}

// post posts the JSON b to rawURL with the headers of header besides its content type, as
// postJSON.
func post(ctx context.Context, client *http.Client, rawURL string, b []byte, header http.Header) ([]byte, error) {
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rawURL, bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("notify: bad URL for %s", redactURL(rawURL))
	}
	for k, v := range header {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // url.Error repeats the whole URL, token included
		}
		return nil, fmt.Errorf("notify: post to %s: %w", req.URL.Host, err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("notify: %s answered %s: %s", req.URL.Host, resp.Status, clip(bytes.TrimSpace(answer), 200))
	}
	return answer, nil
}

// clip returns at most n bytes of b as a string.
func clip(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return string(b)
}

// redactURL is rawURL's scheme and host, with "/…" standing for any path or query: enough to
// tell channels apart in logs, never a token.
func redactURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return "(invalid URL)"
	}
	s := u.Scheme + "://" + u.Host
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		s += "/…"
	}
	return s
}
