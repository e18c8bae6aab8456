package notify

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
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
