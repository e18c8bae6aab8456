package sso

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
	"sync"
	"time"
)

// The team chats people sign in through (their OAuth 2 / QR code login). Each also tells
// Kashi the person's id in the chat, so the chat robots can mention them.
const (
	DingTalk = "dingtalk"
	Feishu   = "feishu"
	WeCom    = "wecom"
)

// ChatConfig is a team chat's login app as the configuration names it.
type ChatConfig struct {
	// Platform is DingTalk, Feishu or WeCom.
	Platform string
	// ClientID is the app's id: DingTalk's Client ID (AppKey), Feishu's App ID, WeCom's
	// CorpID. Secret is its secret (DingTalk's Client Secret, Feishu's App Secret, the WeCom
	// app's Secret), never logged. AgentID is the WeCom app's AgentId.
	ClientID, Secret, AgentID string
	// RedirectURL is Kashi's callback: PUBLIC-URL/login/chat/PLATFORM/callback.
	RedirectURL string
	// LoginURL is where the browser signs in (DingTalk https://login.dingtalk.com, Feishu
	// https://accounts.feishu.cn, WeCom https://login.work.weixin.qq.com); APIURL where Kashi
	// asks (https://api.dingtalk.com, https://open.feishu.cn, https://qyapi.weixin.qq.com);
	// OldAPIURL DingTalk's older API (https://oapi.dingtalk.com). Empty for these; Lark is
	// Feishu at https://accounts.larksuite.com and https://open.larksuite.com.
	LoginURL, APIURL, OldAPIURL string
	// HTTPClient reaches the platform; one with a 10 s timeout when nil.
	HTTPClient *http.Client
	// Now is the clock the app token's expiry is read by; time.Now when nil.
	Now func() time.Time
}

// Chat is the sign-in through one team chat.
type Chat struct {
	cfg ChatConfig
	// app is the app's own access token (DingTalk's and WeCom's access token, Feishu's
	// tenant_access_token), kept until shortly before it expires, as the platforms ask.
	mu       sync.Mutex
	app      string
	appUntil time.Time
}

// chatDefaults are each platform's login and API addresses.
var chatDefaults = map[string][3]string{
	DingTalk: {"https://login.dingtalk.com", "https://api.dingtalk.com", "https://oapi.dingtalk.com"},
	Feishu:   {"https://accounts.feishu.cn", "https://open.feishu.cn", ""},
	WeCom:    {"https://login.work.weixin.qq.com", "https://qyapi.weixin.qq.com", ""},
}

// NewChat returns the sign-in through the chat cfg names.
func NewChat(cfg ChatConfig) (*Chat, error) {
	d, ok := chatDefaults[cfg.Platform]
	if !ok {
		return nil, fmt.Errorf("sso: no chat platform %q (dingtalk, feishu or wecom)", cfg.Platform)
	}
	if cfg.ClientID == "" || cfg.Secret == "" || (cfg.Platform == WeCom && cfg.AgentID == "") {
		return nil, fmt.Errorf("sso: %s needs the app's id and secret%s", cfg.Platform, map[bool]string{true: " and agent id"}[cfg.Platform == WeCom])
	}
	for i, p := range []*string{&cfg.LoginURL, &cfg.APIURL, &cfg.OldAPIURL} {
		if *p == "" {
			*p = d[i]
		}
		*p = strings.TrimSuffix(*p, "/")
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Chat{cfg: cfg}, nil
}

// Platform is the chat's name: DingTalk, Feishu or WeCom.
func (c *Chat) Platform() string { return c.cfg.Platform }

// AuthURL is where the browser signs in at the chat (by its QR code, or at once inside the
// chat's own browser), coming back to RedirectURL with a code and state.
func (c *Chat) AuthURL(state string) string {
	q := url.Values{"redirect_uri": {c.cfg.RedirectURL}, "state": {state}}
	switch c.cfg.Platform {
	case DingTalk:
		// open.dingtalk.com/document/orgapp/tutorial-obtaining-user-personal-information
		q.Set("client_id", c.cfg.ClientID)
		q.Set("response_type", "code")
		q.Set("scope", "openid corpid")
		q.Set("prompt", "consent")
		return c.cfg.LoginURL + "/oauth2/auth?" + q.Encode()
	case Feishu:
		// open.feishu.cn/document/common-capabilities/sso/api/obtain-oauth-code
		q.Set("client_id", c.cfg.ClientID)
		return c.cfg.LoginURL + "/open-apis/authen/v1/authorize?" + q.Encode()
	default:
		// developer.work.weixin.qq.com/document/path/98152 (web login)
		q.Set("login_type", "CorpApp")
		q.Set("appid", c.cfg.ClientID)
		q.Set("agentid", c.cfg.AgentID)
		return c.cfg.LoginURL + "/wwlogin/sso/login?" + q.Encode()
	}
}

// Finish reads who signed in from the query the chat sent the browser back with (its code):
// their id, name, departments (as groups: each by id and by name) and chat id. A code the chat
// refuses (unknown, used, expired, of another app) or a person not (or no longer) active
// there is ErrRefused.
func (c *Chat) Finish(ctx context.Context, query url.Values) (Identity, error) {
	code := query.Get("code")
	if c.cfg.Platform == DingTalk && query.Get("authCode") != "" {
		code = query.Get("authCode")
	}
	if code == "" || len(code) > 512 {
		return Identity{}, fmt.Errorf("sso: %s sent no code: %w", c.cfg.Platform, ErrRefused)
	}
	var id Identity
	var err error
	switch c.cfg.Platform {
	case DingTalk:
		id, err = c.dingTalk(ctx, code)
	case Feishu:
		id, err = c.feishu(ctx, code)
	default:
		id, err = c.weCom(ctx, code)
	}
	if err != nil {
		return Identity{}, fmt.Errorf("sso: %s: %w", c.cfg.Platform, err)
	}
	if id.Groups == nil {
		id.Groups = []string{}
	}
	return id, nil
}

// appToken returns the app's access token, asking fetch for a new one (and how long it
// lasts) when there is none or it expires within five minutes.
func (c *Chat) appToken(ctx context.Context, fetch func(ctx context.Context) (string, time.Duration, error)) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.cfg.Now()
	if c.app != "" && now.Add(5*time.Minute).Before(c.appUntil) {
		return c.app, nil
	}
	tok, ttl, err := fetch(ctx)
	if err != nil {
		return "", err
	}
	if tok == "" {
		return "", fmt.Errorf("the app's access token is empty")
	}
	c.app, c.appUntil = tok, now.Add(ttl)
	return tok, nil
}

// dropAppToken forgets the app's access token (the platform said it expired).
func (c *Chat) dropAppToken() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.app = ""
}

// maxAnswer bounds a platform's answer read.
const maxAnswer = 1 << 20

// call sends a request (body as JSON when not nil) and reads the JSON answer into each of
// outs; it returns the HTTP status, and an error only when the platform could not be asked or
// its answer is no JSON.
func (c *Chat) call(ctx context.Context, method, u string, header map[string]string, body any, outs ...any) (int, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return 0, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json; charset=utf-8")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := c.cfg.HTTPClient.Do(req)
	if err != nil {
		// Not the URL: its query may hold the app's secret (WeCom's gettoken) or token.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return 0, fmt.Errorf("%s %s: %w", method, req.URL.Path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return resp.StatusCode, err
	}
	for _, out := range outs {
		if err := json.Unmarshal(b, out); err != nil {
			return resp.StatusCode, fmt.Errorf("%s %s answered %d, not JSON: %.200s", method, req.URL.Path, resp.StatusCode, b)
		}
	}
	return resp.StatusCode, nil
}

// loginName is the name a chat's person gets in Kashi: their e-mail's local part, else the
// first id given; both are ASCII where display names often are not.
func loginName(email string, ids ...string) string {
	if local, _, ok := strings.Cut(email, "@"); ok && local != "" {
		return local
	}
	for _, id := range ids {
		if id != "" {
			return id
		}
	}
	return ""
}
