package notify

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// DingTalk posts each message to a DingTalk group robot (钉钉自定义机器人) as markdown. With a
// Secret (the robot's "加签" secret, "SEC…"), each request carries timestamp and sign query
// parameters as DingTalk documents: sign = URL-escaped base64(HMAC-SHA256(secret,
// timestamp+"\n"+secret)), timestamp in milliseconds. A robot secured by keywords instead
// needs the keyword "Kashi", which every message carries.
type DingTalk struct {
	// URL is the robot's webhook, https://oapi.dingtalk.com/robot/send?access_token=….
	URL    string
	Secret string
	Client *http.Client
	// Now is the clock of the signature; nil means time.Now.
	Now func() time.Time
}

type dingTalkBody struct {
	MsgType  string `json:"msgtype"`
	Markdown struct {
		Title string `json:"title"`
		Text  string `json:"text"`
	} `json:"markdown"`
	At *dingTalkAt `json:"at,omitempty"`
}

// dingTalkAt names who a DingTalk robot message mentions: by mobile number or userId. The
// markdown text must also carry "@" and each of them for the mention to show
// (https://open.dingtalk.com/document/orgapp/custom-robot-access, "at" of a markdown message).
type dingTalkAt struct {
	AtMobiles []string `json:"atMobiles,omitempty"`
	AtUserIDs []string `json:"atUserIds,omitempty"`
}

// dingTalkMentions is m's mentions as DingTalk takes them, and the "@…" words the text ends
// with; nil and "" for none.
func dingTalkMentions(m Message) (*dingTalkAt, string) {
	var at dingTalkAt
	var words []string
	for _, p := range m.Mentions {
		switch id := p.DingTalk; {
		case !chatID.MatchString(id):
			continue
		case mobile.MatchString(id):
			at.AtMobiles = append(at.AtMobiles, id)
		default:
			at.AtUserIDs = append(at.AtUserIDs, id)
		}
		words = append(words, "@"+p.DingTalk)
	}
	if len(words) == 0 {
		return nil, ""
	}
	return &at, "\n\n" + strings.Join(words, " ")
}

// chatID is what a chat id may be: letters, digits and "_-.@" (the ids each chat platform
// issues are of these), so none can carry markup into a message.
var chatID = regexp.MustCompile(`^[A-Za-z0-9_.@-]{1,64}$`)

// mobile is a mobile number as DingTalk's atMobiles takes it.
var mobile = regexp.MustCompile(`^\+?[0-9]{5,20}$`)

// Send posts m; an HTTP error or an answer whose errcode is not 0 is an error.
func (d DingTalk) Send(ctx context.Context, m Message) error {
	target := d.URL
	if d.Secret != "" {
		ts, sign := DingTalkSign(d.Secret, clockOf(d.Now)())
		target = addQuery(target, "timestamp="+ts+"&sign="+url.QueryEscape(sign))
	}
	var b dingTalkBody
	b.MsgType = "markdown"
	b.Markdown.Title = truncUTF8(m.Title, 200)
	at, words := dingTalkMentions(m)
	b.Markdown.Text, b.At = truncUTF8(markdown(m, "#### "), 18000-len(words))+words, at
	answer, err := postJSON(ctx, d.Client, target, b)
	if err != nil {
		return err
	}
	var r struct {
		ErrCode int    `json:"errcode"`
		ErrMsg  string `json:"errmsg"`
	}
	if err := json.Unmarshal(answer, &r); err != nil {
		return fmt.Errorf("notify: dingtalk answered %q", clip(answer, 200))
	}
	if r.ErrCode != 0 {
		return fmt.Errorf("notify: dingtalk refused the message: errcode %d: %s", r.ErrCode, r.ErrMsg)
	}
	return nil
}

// String names the robot without its access token or secret.
func (d DingTalk) String() string { return "dingtalk:" + redactURL(d.URL) + signed(d.Secret) }

// GoString is String: %#v must not print the secret either.
func (d DingTalk) GoString() string { return d.String() }

// DingTalkSign returns the timestamp (Unix milliseconds) and the signature of a DingTalk
// robot request at now, before URL escaping.
func DingTalkSign(secret string, now time.Time) (timestamp, sign string) {
	timestamp = strconv.FormatInt(now.UnixMilli(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(timestamp + "\n" + secret))
	return timestamp, base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// Feishu posts each message to a Feishu or Lark group bot (飞书自定义机器人) as text. With a
// Secret (签名校验), the body carries timestamp (Unix seconds) and sign as Feishu documents:
// sign = base64(HMAC-SHA256(key = timestamp+"\n"+secret, message = empty)).
type Feishu struct {
	// URL is the bot's webhook, https://open.feishu.cn/open-apis/bot/v2/hook/… (or
	// open.larksuite.com).
	URL    string
	Secret string
	Client *http.Client
	// Now is the clock of the signature; nil means time.Now.
	Now func() time.Time
}

// feishuBody is a Feishu custom bot's interactive message: a card
// (https://open.feishu.cn/document/client-docs/bot-v3/add-custom-bot, 发送消息卡片).
type feishuBody struct {
	Timestamp string     `json:"timestamp,omitempty"`
	Sign      string     `json:"sign,omitempty"`
	MsgType   string     `json:"msg_type"`
	Card      feishuCard `json:"card"`
}

type feishuCard struct {
	Config struct {
		WideScreenMode bool `json:"wide_screen_mode"`
	} `json:"config"`
	Header struct {
		Title    feishuText `json:"title"`
		Template string     `json:"template"`
	} `json:"header"`
	Elements []any `json:"elements"`
}

// feishuText is a card's text: plain_text shows its content as it is (what people typed
// cannot become markup); lark_md is markdown, used only for the mentions Kashi writes.
type feishuText struct {
	Tag     string `json:"tag"`
	Content string `json:"content"`
}

type feishuDiv struct {
	Tag  string     `json:"tag"`
	Text feishuText `json:"text"`
}

type feishuButton struct {
	Tag  string     `json:"tag"`
	Text feishuText `json:"text"`
	Type string     `json:"type"`
	URL  string     `json:"url"`
}

type feishuAction struct {
	Tag     string         `json:"tag"`
	Actions []feishuButton `json:"actions"`
}

type feishuNote struct {
	Tag      string       `json:"tag"`
	Elements []feishuText `json:"elements"`
}

// feishuCardOf is m as a card: the title in the header (green once resolved), the text as
// plain text, the owners mentioned (<at id=open_id></at>), a button into Kashi when the
// link is absolute (a chat cannot open a path), and the footer as a note.
func feishuCardOf(m Message) feishuCard {
	var c feishuCard
	c.Config.WideScreenMode = true
	c.Header.Title = feishuText{"plain_text", truncUTF8(m.Title, 200)}
	c.Header.Template = "blue"
	if m.Resolved {
		c.Header.Template = "green"
	}
	c.Elements = append(c.Elements, feishuDiv{"div", feishuText{"plain_text", truncUTF8(m.Text, 18000)}})
	var at []string
	for _, p := range m.Mentions {
		if chatID.MatchString(p.Feishu) {
			at = append(at, "<at id="+p.Feishu+"></at>")
		}
	}
	if len(at) > 0 {
		c.Elements = append(c.Elements, feishuDiv{"div", feishuText{"lark_md", strings.Join(at, " ")}})
	}
	if strings.HasPrefix(m.Link, "https://") || strings.HasPrefix(m.Link, "http://") {
		c.Elements = append(c.Elements, feishuAction{"action", []feishuButton{{"button", feishuText{"plain_text", cmp.Or(m.LinkText, m.Link)}, "primary", m.Link}}})
	}
	c.Elements = append(c.Elements, feishuNote{"note", []feishuText{{"plain_text", footer(m)}}})
	return c
}

// Send posts m as a card; an HTTP error or an answer whose code (or StatusCode) is not 0 is
// an error.
func (f Feishu) Send(ctx context.Context, m Message) error {
	var b feishuBody
	if f.Secret != "" {
		b.Timestamp, b.Sign = FeishuSign(f.Secret, clockOf(f.Now)())
	}
	b.MsgType, b.Card = "interactive", feishuCardOf(m)
	answer, err := postJSON(ctx, f.Client, f.URL, b)
	if err != nil {
		return err
	}
	var r struct {
		Code          int    `json:"code"`
		Msg           string `json:"msg"`
		StatusCode    int    `json:"StatusCode"`
		StatusMessage string `json:"StatusMessage"`
	}
	if err := json.Unmarshal(answer, &r); err != nil {
		return fmt.Errorf("notify: feishu answered %q", clip(answer, 200))
	}
	switch {
	case r.Code != 0:
		return fmt.Errorf("notify: feishu refused the message: code %d: %s", r.Code, r.Msg)
	case r.StatusCode != 0:
		return fmt.Errorf("notify: feishu refused the message: StatusCode %d: %s", r.StatusCode, r.StatusMessage)
	}
	return nil
}

// String names the bot without its hook token or secret.
func (f Feishu) String() string { return "feishu:" + redactURL(f.URL) + signed(f.Secret) }

// GoString is String: %#v must not print the secret either.
func (f Feishu) GoString() string { return f.String() }

// FeishuSign returns the timestamp (Unix seconds) and the signature of a Feishu bot request
// at now.
func FeishuSign(secret string, now time.Time) (timestamp, sign string) {
	timestamp = strconv.FormatInt(now.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(timestamp+"\n"+secret))
	return timestamp, base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// WeCom posts each message to a WeCom group robot (企业微信群机器人) as markdown.
type WeCom struct {
	// URL is the robot's webhook, https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=….
	URL    string
	Client *http.Client
}

type weComBody struct {
	MsgType  string `json:"msgtype"`
	Markdown struct {
		Content string `json:"content"`
	} `json:"markdown"`
}

// Send posts m; an HTTP error or an answer whose errcode is not 0 is an error.
func (w WeCom) Send(ctx context.Context, m Message) error {
	var b weComBody
	b.MsgType = "markdown"
	// WeCom's markdown mentions a member as <@userid>
	// (https://developer.work.weixin.qq.com/document/path/91770, markdown类型).
	var words []string
	for _, p := range m.Mentions {
		if chatID.MatchString(p.WeCom) {
			words = append(words, "<@"+p.WeCom+">")
		}
	}
	mention := ""
	if len(words) > 0 {
		mention = "\n\n" + strings.Join(words, " ")
	}
	b.Markdown.Content = truncUTF8(markdown(m, "**"), 4000-len(mention)) + mention // WeCom takes 4096 bytes at most
	answer, err := postJSON(ctx, w.Client, w.URL, b)
	if err != nil {
		return err
	}
	var r struct {
		ErrCode int    `json:"errcode"`
		ErrMsg  string `json:"errmsg"`
	}
	if err := json.Unmarshal(answer, &r); err != nil {
		return fmt.Errorf("notify: wecom answered %q", clip(answer, 200))
	}
	if r.ErrCode != 0 {
		return fmt.Errorf("notify: wecom refused the message: errcode %d: %s", r.ErrCode, r.ErrMsg)
	}
	return nil
}

// String names the robot without its key.
func (w WeCom) String() string { return "wecom:" + redactURL(w.URL) }

// GoString is String.
func (w WeCom) GoString() string { return w.String() }

// markdown writes m for a robot that renders markdown: the title as a heading ("#### ") or in
// bold ("**"), the text, the link into Kashi with its words, then a quoted footer naming
// Kashi, the kind, project and time.
// A message's title and text are plain text that carries what people typed (task and
// project names, commands in failure reasons): every character markdown gives a meaning to is
// escaped, so none becomes a link, a heading or emphasis in the team's chat. Lines that begin
// with "- " stay list items.
func markdown(m Message, heading string) string {
	var b strings.Builder
	title := escapeMarkdown(m.Title)
	if heading == "**" {
		b.WriteString("**" + title + "**")
	} else {
		b.WriteString(heading + title)
	}
	b.WriteString("\n\n" + escapeMarkdown(m.Text))
	if m.Link != "" {
		b.WriteString("\n\n[" + escapeMarkdown(cmp.Or(m.LinkText, m.Link)) + "](" + linkEscapes.Replace(m.Link) + ")")
	}
	b.WriteString("\n\n> " + escapeMarkdown(footer(m)))
	return b.String()
}

// markdownEscapes puts a backslash before each character that starts markdown's links,
// headings, emphasis, code and HTML, the backslash first. Parentheses alone make no link,
// so they are left as they read.
var markdownEscapes = strings.NewReplacer(`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"#", `\#`, "<", `\<`, ">", `\>`)

// escapeMarkdown makes s read as the plain text it is in markdown.
func escapeMarkdown(s string) string { return markdownEscapes.Replace(s) }

// linkEscapes percent-encodes what would end a Markdown link's target early.
var linkEscapes = strings.NewReplacer("(", "%28", ")", "%29", " ", "%20", "<", "%3C", ">", "%3E")

// footer is "Kashi · kind · project · 2026-03-02 17:00 CST", leaving out what is empty; the
// time is in At's own zone, which the sender sets to the configured one, and names it.
func footer(m Message) string {
	parts := []string{"Kashi"}
	if m.Kind != "" {
		parts = append(parts, m.Kind)
	}
	if m.Project != "" {
		parts = append(parts, m.Project)
	}
	if !m.At.IsZero() {
		parts = append(parts, Stamp(m.At))
	}
	return strings.Join(parts, " · ")
}

// addQuery appends the encoded query q to rawURL.
func addQuery(rawURL, q string) string {
	base, frag, _ := strings.Cut(rawURL, "#")
	sep := "?"
	if strings.Contains(base, "?") {
		sep = "&"
	}
	if frag != "" {
		return base + sep + q + "#" + frag
	}
	return base + sep + q
}

// truncUTF8 cuts s to at most n bytes without splitting a character.
func truncUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func clockOf(now func() time.Time) func() time.Time {
	if now == nil {
		return time.Now
	}
	return now
}

func signed(secret string) string {
	if secret == "" {
		return ""
	}
	return " (signed)"
}
