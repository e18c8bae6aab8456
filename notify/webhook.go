package notify

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"time"
)

// SignatureHeader is the header of a signed webhook's request: "sha256=" and the hex
// HMAC-SHA256 of the request's body under the channel's secret (Sign).
const SignatureHeader = "X-Kashi-Signature-256"

// Webhook posts each message as JSON to a URL: the Message fields, or with Alertmanager set
// the body of Prometheus Alertmanager's webhook (version 4), so that a receiver written for
// Alertmanager takes Kashi's messages as they are. With a Secret each request carries
// SignatureHeader, so the receiver can tell Kashi's requests from anyone's.
type Webhook struct {
	URL          string
	Secret       string
	Alertmanager bool
	Client       *http.Client
}

// Send posts m; a non-2xx answer is an error.
func (w Webhook) Send(ctx context.Context, m Message) error {
	var body any = m
	if w.Alertmanager {
		body = alertmanagerBody(m)
	}
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	var header http.Header
	if w.Secret != "" {
		header = http.Header{SignatureHeader: {Sign(w.Secret, b)}}
	}
	_, err = post(ctx, w.Client, w.URL, b, header)
	return err
}

// Sign is SignatureHeader's value for body under secret: "sha256=" and the hex HMAC-SHA256.
func Sign(secret string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// String names the channel without the URL's path or query, which may hold a token.
func (w Webhook) String() string {
	s := "webhook:" + redactURL(w.URL) + signed(w.Secret)
	if w.Alertmanager {
		s += " (alertmanager)"
	}
	return s
}

// GoString is String: %#v must not print the URL either.
func (w Webhook) GoString() string { return w.String() }

// amAlert is one alert of Alertmanager's webhook body.
type amAlert struct {
	Status       string            `json:"status"`
	Labels       map[string]string `json:"labels"`
	Annotations  map[string]string `json:"annotations"`
	StartsAt     time.Time         `json:"startsAt"`
	EndsAt       time.Time         `json:"endsAt"`
	GeneratorURL string            `json:"generatorURL"`
	Fingerprint  string            `json:"fingerprint"`
}

// amBody is Alertmanager's webhook body, version 4.
type amBody struct {
	Version           string            `json:"version"`
	GroupKey          string            `json:"groupKey"`
	TruncatedAlerts   int               `json:"truncatedAlerts"`
	Status            string            `json:"status"`
	Receiver          string            `json:"receiver"`
	GroupLabels       map[string]string `json:"groupLabels"`
	CommonLabels      map[string]string `json:"commonLabels"`
	CommonAnnotations map[string]string `json:"commonAnnotations"`
	ExternalURL       string            `json:"externalURL"`
	Alerts            []amAlert         `json:"alerts"`
}

// alertmanagerBody is m as Alertmanager's webhook sends one alert: the kind is alertname,
// the project a label, the title the summary and the text the description, the link the
// generator URL; a resolved message ends at its time.
func alertmanagerBody(m Message) amBody {
	labels := map[string]string{"alertname": m.Kind}
	if m.Project != "" {
		labels["project"] = m.Project
	}
	annotations := map[string]string{"summary": m.Title, "description": m.Text}
	status, ends := "firing", time.Time{}
	if m.Resolved {
		status, ends = "resolved", m.At
	}
	sum := sha256.Sum256([]byte(m.Kind + "\x00" + m.Project + "\x00" + m.Title))
	return amBody{Version: "4", GroupKey: "{}:{alertname=\"" + m.Kind + "\"}", Status: status, Receiver: "kashi",
		GroupLabels: map[string]string{"alertname": m.Kind}, CommonLabels: labels, CommonAnnotations: annotations,
		ExternalURL: m.Link, Alerts: []amAlert{{Status: status, Labels: labels, Annotations: annotations, StartsAt: m.At,
			EndsAt: ends, GeneratorURL: m.Link, Fingerprint: hex.EncodeToString(sum[:8])}}}
}
