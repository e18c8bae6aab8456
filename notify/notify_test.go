package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
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
	m := Message{Kind: "budget", Project: "vision", Title: "80%", Text: "vision used 80% of its budget", At: time.Unix(0, 0).UTC()}
	if err := (Webhook{URL: srv.URL}).Send(context.Background(), m); err != nil {
		t.Fatalf("Send = %v", err)
	}
	if got != m {
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
	if pt := plainText(m); !strings.Contains(pt, "Open the task: https://kashi.example.com/tasks/7") {
		t.Errorf("plain text = %q, want the link with its words", pt)
	}
}
