package ssotest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// ChatUser is a member of the organisation in a team chat.
type ChatUser struct {
	// UserID is the organisation's id of the member (DingTalk and WeCom userid, Feishu
	// user_id); UnionID DingTalk's unionId or Feishu's open_id (WeCom has none).
	UserID, UnionID string
	Email           string
	// Depts are the member's departments' ids (the server's Depts name them).
	Depts []string
	// Disabled: DingTalk's active false, Feishu's is_frozen, WeCom's status 2.
	Disabled bool
}

// ChatApp is the login app registered at the chat: DingTalk's Client ID and Secret, Feishu's
// App ID and Secret, WeCom's CorpID, AgentId and the app's Secret.
type ChatApp struct {
	ClientID, Secret, AgentID string
	// RedirectURL is where the app's sign-ins may go back to.
	RedirectURL string
}

// ChatServer is a team chat's login page and API in a test, answering as the platform's
// documents describe (cited in the code of each answer): one-time codes of five minutes bound
// to the app, the person's and the app's tokens, the errcode and code of each refusal.
type ChatServer struct {
	// URL serves both the login page and the API (the configuration's login and API URLs).
	URL      string
	platform string
	apps     []ChatApp
	mu       sync.Mutex
	users    []*ChatUser
	depts    map[string]string
	// codes are the codes issued: the app's id and the member's UserID; tokens the person's
	// tokens (to a UserID) and apps the app tokens (to the app's id).
	codes, tokens, appTokens map[string]chatGrant
	// Calls counts the API's requests by path.
	calls map[string]int
}

type chatGrant struct {
	app, user string
	until     time.Time
}

// StartChat runs platform's (sso.DingTalk, sso.Feishu, sso.WeCom) login and API for apps, with
// depts (id → name) and users, until the test ends.
func StartChat(tb testing.TB, platform string, apps []ChatApp, depts map[string]string, users ...ChatUser) *ChatServer {
	tb.Helper()
	s := &ChatServer{platform: platform, apps: apps, depts: depts, codes: map[string]chatGrant{}, tokens: map[string]chatGrant{},
		appTokens: map[string]chatGrant{}, calls: map[string]int{}}
	for _, u := range users {
		s.users = append(s.users, &u)
	}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	tb.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// SetDepts changes the departments of the member with userID.
func (s *ChatServer) SetDepts(userID string, depts ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.user(userID).Depts = depts
}

// ExpireAppTokens makes every app token issued so far expired.
func (s *ChatServer) ExpireAppTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, g := range s.appTokens {
		g.until = time.Time{}
		s.appTokens[k] = g
	}
}

// Calls is how many requests the API had at path.
func (s *ChatServer) Calls(path string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[path]
}

func (s *ChatServer) user(userID string) *ChatUser {
	for _, u := range s.users {
		if u.UserID == userID {
			return u
		}
	}
	return nil
}

func (s *ChatServer) app(id string) (ChatApp, bool) {
	for _, a := range s.apps {
		if a.ClientID == id {
			return a, true
		}
	}
	return ChatApp{}, false
}

func token(prefix string) string {
	var b [16]byte
	rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// loginPaths are where each platform's browser sign-in begins.
var loginPaths = map[string]string{"dingtalk": "/oauth2/auth", "feishu": "/open-apis/authen/v1/authorize", "wecom": "/wwlogin/sso/login"}

var loginPage = template.Must(template.New("login").Parse(`<!doctype html><html><head><meta name="viewport" content="width=device-width">
<title>{{.Platform}}</title></head><body><h1>{{.Platform}}</h1><p>Scan the QR code, or choose who signs in:</p>
<form method="post">{{range .Users}}<button name="user" value="{{.}}" id="as-{{.}}">{{.}}</button> {{end}}</form></body></html>`))

func (s *ChatServer) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls[r.URL.Path]++
	if r.URL.Path == loginPaths[s.platform] {
		s.login(w, r)
		return
	}
	switch s.platform {
	case "dingtalk":
		s.dingTalk(w, r)
	case "feishu":
		s.feishu(w, r)
	default:
		s.weCom(w, r)
	}
}

// login is the platform's sign-in page: GET shows it (the QR code, here a button per member),
// POST signs in as the member chosen and sends the browser back with a code and the state.
func (s *ChatServer) login(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	appID, agent := q.Get("client_id"), ""
	if s.platform == "wecom" {
		appID, agent = q.Get("appid"), q.Get("agentid")
		if q.Get("login_type") != "CorpApp" {
			http.Error(w, "login_type must be CorpApp", http.StatusBadRequest)
			return
		}
	} else if s.platform == "dingtalk" && q.Get("response_type") != "code" {
		// login.dingtalk.com/oauth2/auth: response_type is code (open.dingtalk.com/document/orgapp/tutorial-obtaining-user-personal-information);
		// Feishu's authorize takes client_id, redirect_uri, scope and state
		// (open.feishu.cn/document/common-capabilities/sso/api/obtain-oauth-code).
		http.Error(w, "response_type must be code", http.StatusBadRequest)
		return
	}
	a, ok := s.app(appID)
	if !ok || q.Get("redirect_uri") != a.RedirectURL || (s.platform == "wecom" && agent != a.AgentID) {
		// The platforms show an error page for an unknown app or a redirect outside its domain.
		http.Error(w, "unknown app or redirect_uri", http.StatusBadRequest)
		return
	}
	if r.Method == http.MethodGet {
		var names []string
		for _, u := range s.users {
			names = append(names, u.UserID)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		loginPage.Execute(w, map[string]any{"Platform": s.platform, "Users": names})
		return
	}
	r.ParseForm()
	if s.user(r.PostForm.Get("user")) == nil {
		http.Error(w, "no such member", http.StatusBadRequest)
		return
	}
	code := token("")
	s.codes[code] = chatGrant{app: a.key(), user: r.PostForm.Get("user"), until: time.Now().Add(5 * time.Minute)}
	back := url.Values{"code": {code}, "state": {q.Get("state")}}
	if s.platform == "dingtalk" {
		back.Set("authCode", code) // DingTalk sends both
	}
	http.Redirect(w, r, a.RedirectURL+"?"+back.Encode(), http.StatusFound)
}

// key is the app's id and agent id: what its codes and tokens are bound to.
func (a ChatApp) key() string { return a.ClientID + "/" + a.AgentID }

// takeCode takes a code once, if it is unexpired and the app's.
func (s *ChatServer) takeCode(code, app string) (string, bool) {
	g, ok := s.codes[code]
	delete(s.codes, code)
	return g.user, ok && g.app == app && time.Now().Before(g.until)
}

// appToken issues an app token to the app whose secret is secret (and id is id).
func (s *ChatServer) appToken(id, secret string) (string, bool) {
	a, ok := s.app(id)
	if !ok || a.Secret != secret {
		return "", false
	}
	t := token("app-")
	s.appTokens[t] = chatGrant{app: a.key(), until: time.Now().Add(2 * time.Hour)}
	return t, true
}

// validApp is the app of a live app token.
func (s *ChatServer) validApp(t string) (string, bool) {
	g, ok := s.appTokens[t]
	return g.app, ok && time.Now().Before(g.until)
}

// userToken issues the person's token.
func (s *ChatServer) userToken(user string) string {
	t := token("u-")
	s.tokens[t] = chatGrant{user: user, until: time.Now().Add(2 * time.Hour)}
	return t
}

func (s *ChatServer) deptIDs(u *ChatUser) []any {
	out := []any{}
	for _, d := range u.Depts {
		if n, err := strconv.ParseInt(d, 10, 64); err == nil {
			out = append(out, n)
		} else {
			out = append(out, d)
		}
	}
	return out
}

func answer(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func readJSON(r *http.Request) map[string]any {
	var m map[string]any
	b, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	json.Unmarshal(b, &m)
	return m
}

func str(m map[string]any, k string) string {
	switch v := m[k].(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return ""
}

// dingTalk answers DingTalk's API:
// userAccessToken open.dingtalk.com/document/orgapp/obtain-user-token,
// contact/users/me open.dingtalk.com/document/orgapp/dingtalk-retrieve-user-information
// (help.dingtalk.io/open/development/dingtalk-retrieve-user-information),
// oauth2/accessToken open.dingtalk.com/document/orgapp/obtain-the-access_token-of-an-internal-app,
// topapi/user/getbyunionid open.dingtalk.com/document/orgapp/query-a-user-by-the-union-id,
// topapi/v2/user/get open.dingtalk.com/document/orgapp/query-user-details,
// topapi/v2/department/get open.dingtalk.com/document/orgapp/query-department-details0-v2.
// The v1.0 API refuses with a 400 or 401 and {code, message}; topapi with errcode 40014
// (an invalid access_token), 60121 (no such user).
func (s *ChatServer) dingTalk(w http.ResponseWriter, r *http.Request) {
	refuse := func(status int, code, msg string) {
		answer(w, status, map[string]string{"requestid": token(""), "code": code, "message": msg})
	}
	if strings.HasPrefix(r.URL.Path, "/v1.0/") {
		switch r.URL.Path {
		case "/v1.0/oauth2/userAccessToken":
			b := readJSON(r)
			a, ok := s.app(str(b, "clientId"))
			if r.Method != http.MethodPost || !ok || a.Secret != str(b, "clientSecret") || str(b, "grantType") != "authorization_code" {
				refuse(http.StatusBadRequest, "invalidClient", "clientId or clientSecret is wrong")
				return
			}
			user, ok := s.takeCode(str(b, "code"), a.key())
			if !ok {
				refuse(http.StatusBadRequest, "invalidAuthCode", "the authCode is not valid")
				return
			}
			answer(w, http.StatusOK, map[string]any{"accessToken": s.userToken(user), "refreshToken": token("r-"), "expireIn": 7200, "corpId": "ding-corp"})
		case "/v1.0/contact/users/me":
			g, ok := s.tokens[r.Header.Get("x-acs-dingtalk-access-token")]
			if r.Method != http.MethodGet || !ok {
				refuse(http.StatusUnauthorized, "InvalidAuthentication", "the access token is not valid")
				return
			}
			u := s.user(g.user)
			answer(w, http.StatusOK, map[string]any{"nick": "Nick " + u.UserID, "unionId": u.UnionID, "openId": "open-" + u.UserID, "email": u.Email, "stateCode": "86"})
		case "/v1.0/oauth2/accessToken":
			b := readJSON(r)
			t, ok := s.appToken(str(b, "appKey"), str(b, "appSecret"))
			if !ok {
				refuse(http.StatusBadRequest, "invalidClientIdOrSecret", "appKey or appSecret is wrong")
				return
			}
			answer(w, http.StatusOK, map[string]any{"accessToken": t, "expireIn": 7200})
		default:
			refuse(http.StatusNotFound, "NotFound", r.URL.Path)
		}
		return
	}
	if _, ok := s.validApp(r.URL.Query().Get("access_token")); !ok || r.Method != http.MethodPost {
		answer(w, http.StatusOK, map[string]any{"errcode": 40014, "errmsg": "不合法的access_token"})
		return
	}
	b := readJSON(r)
	noUser := map[string]any{"errcode": 60121, "errmsg": "找不到该用户"}
	switch r.URL.Path {
	case "/topapi/user/getbyunionid":
		for _, u := range s.users {
			if u.UnionID == str(b, "unionid") {
				answer(w, http.StatusOK, map[string]any{"errcode": 0, "errmsg": "ok", "result": map[string]any{"contact_type": 0, "userid": u.UserID}})
				return
			}
		}
		answer(w, http.StatusOK, noUser)
	case "/topapi/v2/user/get":
		u := s.user(str(b, "userid"))
		if u == nil {
			answer(w, http.StatusOK, noUser)
			return
		}
		answer(w, http.StatusOK, map[string]any{"errcode": 0, "errmsg": "ok", "result": map[string]any{"userid": u.UserID, "unionid": u.UnionID,
			"name": "名" + u.UserID, "email": u.Email, "dept_id_list": s.deptIDs(u), "active": !u.Disabled}})
	case "/topapi/v2/department/get":
		name, ok := s.depts[str(b, "dept_id")]
		if !ok {
			answer(w, http.StatusOK, map[string]any{"errcode": 60003, "errmsg": "部门不存在"})
			return
		}
		answer(w, http.StatusOK, map[string]any{"errcode": 0, "errmsg": "ok", "result": map[string]any{"dept_id": b["dept_id"], "name": name}})
	default:
		http.NotFound(w, r)
	}
}

// feishu answers Feishu's API:
// authen/v2/oauth/token open.feishu.cn/document/uAjLw4CM/ukTMukTMukTM/authentication-management/access-token/get-user-access-token
// (RFC 6749 errors with Feishu's code: 20003 a code not found or used, 20002 a wrong client),
// authen/v1/user_info open.feishu.cn/document/uAjLw4CM/ukTMukTMukTM/reference/authen-v1/user_info/get,
// auth/v3/tenant_access_token/internal open.feishu.cn/document/server-docs/authentication-management/access-token/tenant_access_token_internal,
// contact/v3/users/:user_id open.feishu.cn/document/server-docs/contact-v3/user/get,
// contact/v3/departments/:department_id open.feishu.cn/document/server-docs/contact-v3/department/get;
// 99991663 an invalid tenant_access_token, 99991668 an invalid user_access_token, 41050 a
// user out of the app's range.
func (s *ChatServer) feishu(w http.ResponseWriter, r *http.Request) {
	bearer := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	switch p := r.URL.Path; {
	case p == "/open-apis/authen/v2/oauth/token":
		b := readJSON(r)
		a, ok := s.app(str(b, "client_id"))
		if !ok || a.Secret != str(b, "client_secret") {
			answer(w, http.StatusUnauthorized, map[string]any{"code": 20002, "error": "invalid_client", "error_description": "The client secret is invalid."})
			return
		}
		user, ok := s.takeCode(str(b, "code"), a.key())
		if !ok || str(b, "grant_type") != "authorization_code" || str(b, "redirect_uri") != a.RedirectURL {
			answer(w, http.StatusBadRequest, map[string]any{"code": 20003, "error": "invalid_grant", "error_description": "The authorization code is not found."})
			return
		}
		answer(w, http.StatusOK, map[string]any{"code": 0, "access_token": s.userToken(user), "expires_in": 7200, "token_type": "Bearer", "scope": ""})
	case p == "/open-apis/authen/v1/user_info":
		g, ok := s.tokens[bearer]
		if !ok {
			answer(w, http.StatusUnauthorized, map[string]any{"code": 99991668, "msg": "Invalid access token for authorization."})
			return
		}
		u := s.user(g.user)
		answer(w, http.StatusOK, map[string]any{"code": 0, "msg": "success", "data": map[string]any{"name": "名" + u.UserID, "en_name": u.UserID,
			"open_id": u.UnionID, "union_id": "on_" + u.UserID, "user_id": u.UserID, "email": u.Email, "tenant_key": "tenant"}})
	case p == "/open-apis/auth/v3/tenant_access_token/internal":
		b := readJSON(r)
		t, ok := s.appToken(str(b, "app_id"), str(b, "app_secret"))
		if !ok {
			answer(w, http.StatusOK, map[string]any{"code": 10014, "msg": "app secret invalid"})
			return
		}
		answer(w, http.StatusOK, map[string]any{"code": 0, "msg": "ok", "tenant_access_token": t, "expire": 7200})
	case strings.HasPrefix(p, "/open-apis/contact/v3/"):
		if _, ok := s.validApp(bearer); !ok {
			answer(w, http.StatusBadRequest, map[string]any{"code": 99991663, "msg": "Invalid access token for authorization."})
			return
		}
		if id, ok := strings.CutPrefix(p, "/open-apis/contact/v3/users/"); ok && r.URL.Query().Get("user_id_type") == "open_id" {
			for _, u := range s.users {
				if u.UnionID == id {
					answer(w, http.StatusOK, map[string]any{"code": 0, "msg": "success", "data": map[string]any{"user": map[string]any{
						"open_id": u.UnionID, "user_id": u.UserID, "department_ids": s.deptIDs(u),
						"status": map[string]bool{"is_frozen": u.Disabled, "is_resigned": false, "is_activated": true}}}})
					return
				}
			}
			answer(w, http.StatusBadRequest, map[string]any{"code": 41050, "msg": "no user authority error"})
			return
		}
		if id, ok := strings.CutPrefix(p, "/open-apis/contact/v3/departments/"); ok {
			if name, ok := s.depts[id]; ok {
				answer(w, http.StatusOK, map[string]any{"code": 0, "msg": "success", "data": map[string]any{"department": map[string]any{"name": name, "open_department_id": id}}})
				return
			}
		}
		answer(w, http.StatusBadRequest, map[string]any{"code": 40004, "msg": "no dept authority error"})
	default:
		http.NotFound(w, r)
	}
}

var weComID = regexp.MustCompile(`^[0-9]+$`)

// weCom answers WeCom's API: gettoken developer.work.weixin.qq.com/document/path/91039,
// auth/getuserinfo developer.work.weixin.qq.com/document/path/91023, user/get
// developer.work.weixin.qq.com/document/path/90196, department/get
// developer.work.weixin.qq.com/document/path/95351; errcode 40001 a wrong secret, 40014 an
// invalid and 42001 an expired access_token, 40029 an invalid code, 60111 no such userid.
func (s *ChatServer) weCom(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if r.URL.Path == "/cgi-bin/gettoken" {
		t, ok := s.appToken(q.Get("corpid"), q.Get("corpsecret"))
		if !ok {
			answer(w, http.StatusOK, map[string]any{"errcode": 40001, "errmsg": "invalid credential"})
			return
		}
		answer(w, http.StatusOK, map[string]any{"errcode": 0, "errmsg": "ok", "access_token": t, "expires_in": 7200})
		return
	}
	g, ok := s.appTokens[q.Get("access_token")]
	if !ok {
		answer(w, http.StatusOK, map[string]any{"errcode": 40014, "errmsg": "invalid access_token"})
		return
	} else if !time.Now().Before(g.until) {
		answer(w, http.StatusOK, map[string]any{"errcode": 42001, "errmsg": "access_token expired"})
		return
	}
	switch r.URL.Path {
	case "/cgi-bin/auth/getuserinfo":
		user, ok := s.takeCode(q.Get("code"), g.app)
		if !ok {
			answer(w, http.StatusOK, map[string]any{"errcode": 40029, "errmsg": "invalid code"})
			return
		}
		answer(w, http.StatusOK, map[string]any{"errcode": 0, "errmsg": "ok", "userid": user, "user_ticket": token("t-")})
	case "/cgi-bin/user/get":
		u := s.user(q.Get("userid"))
		if u == nil {
			answer(w, http.StatusOK, map[string]any{"errcode": 60111, "errmsg": "userid not found"})
			return
		}
		status := 1
		if u.Disabled {
			status = 2
		}
		answer(w, http.StatusOK, map[string]any{"errcode": 0, "errmsg": "ok", "userid": u.UserID, "name": "名" + u.UserID,
			"department": s.deptIDs(u), "status": status, "email": u.Email})
	case "/cgi-bin/department/get":
		name, ok := s.depts[q.Get("id")]
		if !ok || !weComID.MatchString(q.Get("id")) {
			answer(w, http.StatusOK, map[string]any{"errcode": 60123, "errmsg": "invalid party id"})
			return
		}
		answer(w, http.StatusOK, map[string]any{"errcode": 0, "errmsg": "ok", "department": map[string]any{"id": q.Get("id"), "name": name}})
	default:
		http.NotFound(w, r)
	}
}

// ChatSignIn follows authURL (Kashi's sign-in at the chat) with c, signs in as the member
// userID, and returns where the chat sends the browser back, without following it.
func (s *ChatServer) ChatSignIn(c *http.Client, authURL, userID string) (*url.URL, error) {
	resp, err := c.Get(authURL)
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("ssotest: the chat's login page %s: %s", authURL, resp.Status)
	}
	nc := *c
	nc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err = nc.PostForm(authURL, url.Values{"user": {userID}})
	if err != nil {
		return nil, err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound {
		return nil, fmt.Errorf("ssotest: sign in as %s: %s", userID, resp.Status)
	}
	return resp.Location()
}
