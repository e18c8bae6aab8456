package sso

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// DingTalk's login (登录第三方网站): the browser signs in at login.dingtalk.com and comes back
// with an authCode; Kashi exchanges it for the person's token
// (open.dingtalk.com/document/orgapp/obtain-user-token), reads who they are with it
// (open.dingtalk.com/document/orgapp/dingtalk-retrieve-user-information), then, as the app,
// finds their userid in the organisation by their unionId
// (open.dingtalk.com/document/orgapp/query-a-user-by-the-union-id), their departments
// (open.dingtalk.com/document/orgapp/query-user-details) and each department's name
// (open.dingtalk.com/document/orgapp/query-department-details0-v2).

// dingTalkError is the v1.0 API's error body (with a 4xx status).
type dingTalkError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (c *Chat) dingTalk(ctx context.Context, code string) (Identity, error) {
	var tok struct {
		AccessToken string `json:"accessToken"`
		dingTalkError
	}
	status, err := c.call(ctx, http.MethodPost, c.cfg.APIURL+"/v1.0/oauth2/userAccessToken", nil, map[string]string{
		"clientId": c.cfg.ClientID, "clientSecret": c.cfg.Secret, "code": code, "grantType": "authorization_code"}, &tok)
	switch {
	case err != nil:
		return Identity{}, err
	case status >= 400 && status < 500:
		return Identity{}, fmt.Errorf("the code: %s %s: %w", tok.Code, tok.Message, ErrRefused)
	case status != http.StatusOK || tok.AccessToken == "":
		return Identity{}, fmt.Errorf("the code: %d %s %s", status, tok.Code, tok.Message)
	}
	var me struct {
		UnionID string `json:"unionId"`
		Email   string `json:"email"`
		dingTalkError
	}
	status, err = c.call(ctx, http.MethodGet, c.cfg.APIURL+"/v1.0/contact/users/me", map[string]string{"x-acs-dingtalk-access-token": tok.AccessToken}, nil, &me)
	if err != nil {
		return Identity{}, err
	} else if status != http.StatusOK || me.UnionID == "" {
		return Identity{}, fmt.Errorf("who signed in: %d %s %s", status, me.Code, me.Message)
	}
	var byUnion struct {
		Result struct {
			ContactType int    `json:"contact_type"`
			UserID      string `json:"userid"`
		} `json:"result"`
	}
	if err := c.oldAPI(ctx, "/topapi/user/getbyunionid", map[string]any{"unionid": me.UnionID}, &byUnion); err != nil {
		return Identity{}, err
	}
	if byUnion.Result.UserID == "" || byUnion.Result.ContactType != 0 { // 1: an external contact
		return Identity{}, fmt.Errorf("%s is not a member of the organisation: %w", me.UnionID, ErrRefused)
	}
	var user struct {
		Result struct {
			UserID   string  `json:"userid"`
			Email    string  `json:"email"`
			OrgEmail string  `json:"org_email"`
			Active   *bool   `json:"active"`
			Depts    []int64 `json:"dept_id_list"`
		} `json:"result"`
	}
	if err := c.oldAPI(ctx, "/topapi/v2/user/get", map[string]any{"userid": byUnion.Result.UserID, "language": "zh_CN"}, &user); err != nil {
		return Identity{}, err
	}
	u := user.Result
	if u.UserID == "" || (u.Active != nil && !*u.Active) {
		return Identity{}, fmt.Errorf("%s is not an active member of the organisation: %w", me.UnionID, ErrRefused)
	}
	id := Identity{ID: me.UnionID, ChatID: u.UserID, Email: firstOf(u.OrgEmail, u.Email, me.Email), Groups: []string{}}
	id.Name = loginName(id.Email, u.UserID)
	for _, d := range u.Depts[:min(len(u.Depts), maxGroups)] {
		var dept struct {
			Result struct {
				Name string `json:"name"`
			} `json:"result"`
		}
		if err := c.oldAPI(ctx, "/topapi/v2/department/get", map[string]any{"dept_id": d, "language": "zh_CN"}, &dept); err != nil {
			return Identity{}, err
		}
		id.Groups = append(id.Groups, strconv.FormatInt(d, 10))
		if dept.Result.Name != "" {
			id.Groups = append(id.Groups, dept.Result.Name)
		}
	}
	return id, nil
}

// oldAPI posts body to one of DingTalk's older APIs (oapi.dingtalk.com/topapi) as the app,
// and reads the answer into out. A person the organisation does not have (errcode 60121)
// is ErrRefused; an expired app token is asked for again once.
func (c *Chat) oldAPI(ctx context.Context, path string, body, out any) error {
	for try := 0; ; try++ {
		tok, err := c.appToken(ctx, c.dingTalkApp)
		if err != nil {
			return err
		}
		var head struct {
			ErrCode int    `json:"errcode"`
			ErrMsg  string `json:"errmsg"`
		}
		u := c.cfg.OldAPIURL + path + "?access_token=" + url.QueryEscape(tok)
		if _, err := c.call(ctx, http.MethodPost, u, nil, body, &head, out); err != nil {
			return err
		}
		switch head.ErrCode {
		case 0:
			return nil
		case 60121:
			return fmt.Errorf("%s: %d %s: %w", path, head.ErrCode, head.ErrMsg, ErrRefused)
		case 40014, 42001:
			if try == 0 {
				c.dropAppToken()
				continue
			}
		}
		return fmt.Errorf("%s: %d %s", path, head.ErrCode, head.ErrMsg)
	}
}

// dingTalkApp asks for the app's access token
// (open.dingtalk.com/document/orgapp/obtain-the-access_token-of-an-internal-app).
func (c *Chat) dingTalkApp(ctx context.Context) (string, time.Duration, error) {
	var tok struct {
		AccessToken string `json:"accessToken"`
		ExpireIn    int64  `json:"expireIn"`
		dingTalkError
	}
	status, err := c.call(ctx, http.MethodPost, c.cfg.APIURL+"/v1.0/oauth2/accessToken", nil, map[string]string{"appKey": c.cfg.ClientID, "appSecret": c.cfg.Secret}, &tok)
	if err != nil {
		return "", 0, err
	} else if status != http.StatusOK {
		return "", 0, fmt.Errorf("the app's access token: %d %s %s", status, tok.Code, tok.Message)
	}
	return tok.AccessToken, time.Duration(tok.ExpireIn) * time.Second, nil
}

// firstOf is the first of vs not empty.
func firstOf(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return ""
}
