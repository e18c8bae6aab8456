package notify

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestWebhook(t *testing.T) {
	var got Message
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Content-Type") != "application/json" {
			w.WriteHeader(http.StatusUnsupportedMediaType)
			return
		}
		json.NewDecoder(r.Body).Decode(&got)
	}))
	defer srv.Close()
	m := Message{Kind: "budget", Project: "vision", Title: "80%", Text: "vision used 80% of its budget", At: time.Unix(0, 0).UTC(),
		Mentions: []Mention{{Name: "ana", DingTalk: "13800000000", Feishu: "ou_1", WeCom: "ana"}}}
	if err := (Webhook{URL: srv.URL}).Send(context.Background(), m); err != nil {
		t.Fatalf("Send = %v", err)
	}
	if !reflect.DeepEqual(got, m) {
		t.Errorf("webhook got %+v, want %+v", got, m)
	}
	fail := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusBadGateway) }))
	defer fail.Close()
	if err := (Webhook{URL: fail.URL}).Send(context.Background(), m); err == nil {
		t.Error("Send to a 502 = nil, want an error")
	}
}

// TestUnderLinks: a message's path is sent under the public URL, and every robot shows the
// link with its words; an absolute link is left as it is, and no public URL leaves paths.
func TestUnderLinks(t *testing.T) {
	var got Message
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { json.NewDecoder(r.Body).Decode(&got) }))
	defer srv.Close()
	m := Message{Kind: "gpu-memory", Title: "t", Text: "x", Link: "/tasks/7", LinkText: "Open the task"}
	ch := Under("https://kashi.example.com/", []Channel{Webhook{URL: srv.URL}})[0]
	if err := ch.Send(context.Background(), m); err != nil || got.Link != "https://kashi.example.com/tasks/7" {
		t.Errorf("Send = %v; webhook got link %q, want https://kashi.example.com/tasks/7", err, got.Link)
	}
	if s := fmt.Sprint(ch); s != fmt.Sprint(Webhook{URL: srv.URL}) {
		t.Errorf("wrapped channel names itself %q", s)
	}
	m.Link = "https://elsewhere.example/r"
	if ch.Send(context.Background(), m); got.Link != m.Link {
		t.Errorf("an absolute link became %q", got.Link)
	}
	if chs := Under("", []Channel{Webhook{URL: srv.URL}}); chs[0] != (Webhook{URL: srv.URL}) {
		t.Errorf("Under without a public URL wrapped the channel: %v", chs)
	}
	m.Link = "https://kashi.example.com/tasks/7"
	if md := markdown(m, "**"); !strings.Contains(md, "[Open the task](https://kashi.example.com/tasks/7)") {
		t.Errorf("markdown = %q, want the link with its words", md)
	}
	if b, _ := json.Marshal(feishuCardOf(m)); !strings.Contains(string(b), `{"tag":"button","text":{"tag":"plain_text","content":"Open the task"},"type":"primary","url":"https://kashi.example.com/tasks/7"}`) {
		t.Errorf("feishu card = %s, want a button with the link's words", b)
	}
}

// TestWebhookSigned: with a secret, the request carries X-Kashi-Signature-256, "sha256=" and
// the hex HMAC-SHA256 of the body, which a receiver computes alike; without, none.
func TestWebhookSigned(t *testing.T) {
	var body []byte
	var sig string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ = io.ReadAll(r.Body)
		sig = r.Header.Get("X-Kashi-Signature-256")
	}))
	defer srv.Close()
	m := Message{Kind: "budget", Project: "vision", Title: "80%", Text: "vision used 80% of its budget", At: time.Unix(0, 0).UTC(),
		Mentions: []Mention{{Name: "ana", DingTalk: "13800000000", Feishu: "ou_1", WeCom: "ana"}}}
	if err := (Webhook{URL: srv.URL, Secret: "s3cret"}).Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	mac := hmac.New(sha256.New, []byte("s3cret"))
	mac.Write(body)
	if want := "sha256=" + hex.EncodeToString(mac.Sum(nil)); sig != want || len(body) == 0 {
		t.Errorf("signature = %q, want %q over %s", sig, want, body)
	}
	if err := (Webhook{URL: srv.URL}).Send(context.Background(), m); err != nil || sig != "" {
		t.Errorf("Send = %v; an unsigned webhook sent signature %q", err, sig)
	}
}

// TestWebhookAlertmanager: format=alertmanager posts Alertmanager's webhook body: version 4,
// the kind as alertname, the project a label, title and text as summary and description,
// the link as generator URL, firing until the message says resolved.
func TestWebhookAlertmanager(t *testing.T) {
	var got map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { json.NewDecoder(r.Body).Decode(&got) }))
	defer srv.Close()
	at := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	m := Message{Kind: "gpu-memory", Project: "vision", Title: "T", Text: "X", At: at, Link: "https://kashi.example.com/alerts"}
	for _, resolved := range []bool{false, true} {
		m.Resolved = resolved
		if err := (Webhook{URL: srv.URL, Alertmanager: true}).Send(context.Background(), m); err != nil {
			t.Fatal(err)
		}
		status, ends := "firing", "0001-01-01T00:00:00Z"
		if resolved {
			status, ends = "resolved", "2026-03-02T09:00:00Z"
		}
		a := got["alerts"].([]any)[0].(map[string]any)
		labels, ann := a["labels"].(map[string]any), a["annotations"].(map[string]any)
		if got["version"] != "4" || got["status"] != status || a["status"] != status || labels["alertname"] != "gpu-memory" ||
			labels["project"] != "vision" || ann["summary"] != "T" || ann["description"] != "X" ||
			a["generatorURL"] != m.Link || a["startsAt"] != "2026-03-02T09:00:00Z" || a["endsAt"] != ends {
			t.Errorf("resolved %v: body = %v", resolved, got)
		}
	}
}
