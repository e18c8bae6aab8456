package notify

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// t0 is the robots' fixed clock: 2026-03-02 09:00:00.123 UTC.
var t0 = time.Date(2026, 3, 2, 9, 0, 0, 123_000_000, time.UTC)

func fixed() time.Time { return t0 }

var msg = Message{Kind: "scale-failed", Project: "vision", Title: "Pool a100: scaling failed",
	Text: "pool a100: create a100-1: out of capacity", At: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)}

// robot is a fake robot endpoint: it records each request's query and body and answers with
// answer (HTTP 200).
type robot struct {
	srv    *httptest.Server
	query  url.Values
	body   string
	answer string
}

func newRobot(t *testing.T, answer string) *robot {
	t.Helper()
	r := &robot{answer: answer}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodPost || req.Header.Get("Content-Type") != "application/json" {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		b, _ := io.ReadAll(req.Body)
		r.query, r.body = req.URL.Query(), string(b)
		io.WriteString(w, r.answer)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

// hmacB64 is base64(HMAC-SHA256(key, msg)), written out here apart from the package's code.
func hmacB64(key, msg string) string {
	h := hmac.New(sha256.New, []byte(key))
	io.WriteString(h, msg)
	return base64.StdEncoding.EncodeToString(h.Sum(nil))
}

func TestDingTalkBodyAndSignature(t *testing.T) {
	r := newRobot(t, `{"errcode":0,"errmsg":"ok"}`)
	const secret = "SEC1234567890abcdef"
	d := DingTalk{URL: r.srv.URL + "/robot/send?access_token=tok-123", Secret: secret, Now: fixed}
	if err := d.Send(context.Background(), msg); err != nil {
		t.Fatalf("Send = %v", err)
	}
	wantBody := `{"msgtype":"markdown","markdown":{"title":"Pool a100: scaling failed","text":"#### Pool a100: scaling failed\n\npool a100: create a100-1: out of capacity\n\n\u003e Kashi · scale-failed · vision · 2026-03-02 09:00 UTC"}}`
	if r.body != wantBody {
		t.Errorf("body = %s\nwant   %s", r.body, wantBody)
	}
	ts := "1772442000123" // t0 in Unix milliseconds
	if got := r.query.Get("timestamp"); got != ts {
		t.Errorf("timestamp = %q, want %q", got, ts)
	}
	if got, want := r.query.Get("sign"), hmacB64(secret, ts+"\n"+secret); got != want {
		t.Errorf("sign = %q, want %q", got, want)
	}
	if got := r.query.Get("access_token"); got != "tok-123" {
		t.Errorf("access_token = %q, want it kept", got)
	}
}

func TestDingTalkUnsigned(t *testing.T) {
	r := newRobot(t, `{"errcode":0,"errmsg":"ok"}`)
	if err := (DingTalk{URL: r.srv.URL + "/robot/send?access_token=t"}).Send(context.Background(), msg); err != nil {
		t.Fatalf("Send = %v", err)
	}
	if r.query.Has("sign") || r.query.Has("timestamp") {
		t.Errorf("query = %v, want no signature without a secret", r.query)
	}
}

func TestFeishuBodyAndSignature(t *testing.T) {
	r := newRobot(t, `{"code":0,"msg":"success","data":{}}`)
	const secret = "fs-secret"
	f := Feishu{URL: r.srv.URL + "/open-apis/bot/v2/hook/abc", Secret: secret, Now: fixed}
	if err := f.Send(context.Background(), msg); err != nil {
		t.Fatalf("Send = %v", err)
	}
	ts := "1772442000"
	sign := hmacB64(ts+"\n"+secret, "")
	want := `{"timestamp":"` + ts + `","sign":"` + sign + `","msg_type":"interactive","card":{"config":{"wide_screen_mode":true},"header":{"title":{"tag":"plain_text","content":"Pool a100: scaling failed"},"template":"blue"},"elements":[{"tag":"div","text":{"tag":"plain_text","content":"pool a100: create a100-1: out of capacity"}},{"tag":"note","elements":[{"tag":"plain_text","content":"Kashi · scale-failed · vision · 2026-03-02 09:00 UTC"}]}]}}`
	if r.body != want {
		t.Errorf("body = %s\nwant   %s", r.body, want)
	}
	// Unsigned: no timestamp or sign fields at all.
	if err := (Feishu{URL: r.srv.URL}).Send(context.Background(), msg); err != nil {
		t.Fatalf("Send = %v", err)
	}
	if strings.Contains(r.body, `"sign"`) || strings.Contains(r.body, `"timestamp"`) {
		t.Errorf("unsigned body = %s, want no sign or timestamp", r.body)
	}
}

func TestWeComBody(t *testing.T) {
	r := newRobot(t, `{"errcode":0,"errmsg":"ok"}`)
	if err := (WeCom{URL: r.srv.URL + "/cgi-bin/webhook/send?key=k"}).Send(context.Background(), msg); err != nil {
		t.Fatalf("Send = %v", err)
	}
	want := `{"msgtype":"markdown","markdown":{"content":"**Pool a100: scaling failed**\n\npool a100: create a100-1: out of capacity\n\n\u003e Kashi · scale-failed · vision · 2026-03-02 09:00 UTC"}}`
	if r.body != want {
		t.Errorf("body = %s\nwant   %s", r.body, want)
	}
}

// TestRobotsMentionOwners: each robot mentions a message's people as its documents say —
// DingTalk by "at" (atMobiles for a mobile number, atUserIds for a userId) with "@…" ending
// the text (open.dingtalk.com/document/orgapp/custom-robot-access), WeCom by <@userid> in
// its markdown (developer.work.weixin.qq.com/document/path/91770), Feishu by
// <at id=open_id></at> in a lark_md element of the card
// (open.feishu.cn/document/client-docs/bot-v3/add-custom-bot). An id that is not one (markup
// in it) and a person without an id on that chat are left out; no mention, no "at".
func TestRobotsMentionOwners(t *testing.T) {
	m := msg
	m.Mentions = []Mention{{Name: "ana", DingTalk: "13800000000", Feishu: "ou_7f3a", WeCom: "ana.li"},
		{Name: "bo", DingTalk: "manager4711"}, {Name: "eve", DingTalk: "x<a href=y>", Feishu: "ou 1", WeCom: "a>b"}}
	r := newRobot(t, `{"errcode":0,"errmsg":"ok"}`)
	if err := (DingTalk{URL: r.srv.URL}).Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.body, `"at":{"atMobiles":["13800000000"],"atUserIds":["manager4711"]}`) ||
		!strings.Contains(r.body, `UTC\n\n@13800000000 @manager4711"`) {
		t.Errorf("dingtalk body = %s, want ana by mobile and bo by userId, in at and at the text's end", r.body)
	}
	if err := (WeCom{URL: r.srv.URL}).Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(r.body, `UTC\n\n\u003c@ana.li\u003e"}}`) {
		t.Errorf("wecom body = %s, want <@ana.li> at its end", r.body)
	}
	f := newRobot(t, `{"code":0,"msg":"success"}`)
	if err := (Feishu{URL: f.srv.URL}).Send(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f.body, `{"tag":"div","text":{"tag":"lark_md","content":"\u003cat id=ou_7f3a\u003e\u003c/at\u003e"}}`) {
		t.Errorf("feishu body = %s, want ana's open_id in a lark_md at", f.body)
	}
	for _, body := range []string{r.body, f.body} {
		if strings.Contains(body, "href") || strings.Contains(body, "ou 1") || strings.Contains(body, "a\u003eb") {
			t.Errorf("body = %s carries eve's ids, which are not ids", body)
		}
	}
	if err := (DingTalk{URL: r.srv.URL}).Send(context.Background(), msg); err != nil || strings.Contains(r.body, `"at"`) {
		t.Errorf("Send = %v, body = %s: want no at without mentions", err, r.body)
	}
}

// TestRobotErrorCodes: a robot that answers 200 with an error code refused the message.
func TestRobotErrorCodes(t *testing.T) {
	tests := map[string]struct {
		answer string
		send   func(url string) error
		ok     bool
	}{
		"dingtalk ok":          {`{"errcode":0,"errmsg":"ok"}`, dingtalk, true},
		"dingtalk sign":        {`{"errcode":310000,"errmsg":"sign not match"}`, dingtalk, false},
		"dingtalk not json":    {`<html>`, dingtalk, false},
		"feishu ok":            {`{"code":0,"msg":"success"}`, feishu, true},
		"feishu old ok":        {`{"Extra":null,"StatusCode":0,"StatusMessage":"success"}`, feishu, true},
		"feishu code":          {`{"code":19021,"msg":"sign match fail"}`, feishu, false},
		"feishu status code":   {`{"StatusCode":9499,"StatusMessage":"Bad Request"}`, feishu, false},
		"wecom ok":             {`{"errcode":0,"errmsg":"ok"}`, wecom, true},
		"wecom invalid key":    {`{"errcode":93000,"errmsg":"invalid webhook url"}`, wecom, false},
		"wecom empty answer":   {``, wecom, false},
		"dingtalk answer text": {`{"errcode":"x"}`, dingtalk, false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r := newRobot(t, tc.answer)
			err := tc.send(r.srv.URL + "/hook?access_token=tok-secret")
			if (err == nil) != tc.ok {
				t.Fatalf("Send = %v, want ok=%v", err, tc.ok)
			}
			if err != nil && strings.Contains(err.Error(), "tok-secret") {
				t.Errorf("error %q shows the token", err)
			}
		})
	}
}

func dingtalk(u string) error {
	return DingTalk{URL: u, Secret: "SECx", Now: fixed}.Send(context.Background(), msg)
}
func feishu(u string) error {
	return Feishu{URL: u, Secret: "s", Now: fixed}.Send(context.Background(), msg)
}
func wecom(u string) error { return WeCom{URL: u}.Send(context.Background(), msg) }

// TestErrorsHideTokens: a failed connection or an HTTP error names the host only.
func TestErrorsHideTokens(t *testing.T) {
	fail := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "bad gateway", http.StatusBadGateway)
	}))
	defer fail.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	for _, base := range []string{fail.URL, closed.URL} {
		for _, ch := range []Channel{
			DingTalk{URL: base + "/robot/send?access_token=tok-secret", Secret: "SEC-secret", Now: fixed},
			Feishu{URL: base + "/hook/tok-secret", Secret: "SEC-secret", Now: fixed},
			WeCom{URL: base + "/send?key=tok-secret"},
			Webhook{URL: base + "/hook/tok-secret"},
		} {
			err := ch.Send(context.Background(), msg)
			if err == nil {
				t.Fatalf("%v.Send to a failing server = nil", ch)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Errorf("%v: error %q shows a token or secret", ch, err)
			}
		}
	}
}

func TestTruncUTF8(t *testing.T) {
	s := strings.Repeat("卡", 10) // 3 bytes each
	for n := range 31 {
		got := truncUTF8(s, n)
		if len(got) > n || len(got)%3 != 0 {
			t.Errorf("truncUTF8(%d) = %d bytes, want ≤ %d on a character boundary", n, len(got), n)
		}
	}
	if got := truncUTF8("abc", 10); got != "abc" {
		t.Errorf("truncUTF8(abc, 10) = %q", got)
	}
}

func ExampleParse() {
	ch, err := Parse("dingtalk:https://oapi.dingtalk.com/robot/send?access_token=0123abcd#secret=SEC4567")
	if err != nil {
		panic(err)
	}
	fmt.Println(ch)
	// Output: dingtalk:https://oapi.dingtalk.com/… (signed)
}

// TestMarkdownEscapesWhatPeopleTyped: a task name or command in a message cannot become a
// link, a heading, emphasis, code or HTML in the team's chat; it reads as typed.
func TestMarkdownEscapesWhatPeopleTyped(t *testing.T) {
	m := Message{Kind: "idle-card", Project: "vision_2", Title: "Task **[win](http://evil.example)**",
		Text: "# Pay here\n- #12 `rm -rf` <img src=x> by a\\b\n> quoted", At: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)}
	got := markdown(m, "#### ")
	want := "#### Task \\*\\*\\[win\\](http://evil.example)\\*\\*\n\n" +
		"\\# Pay here\n- \\#12 \\`rm -rf\\` \\<img src=x\\> by a\\\\b\n\\> quoted\n\n" +
		"> Kashi · idle-card · vision\\_2 · 2026-03-02 09:00 UTC"
	if got != want {
		t.Errorf("markdown =\n%s\nwant\n%s", got, want)
	}
}
