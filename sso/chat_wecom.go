package sso

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// WeCom's web login (企业微信登录): the browser signs in at login.work.weixin.qq.com by the
// QR code (developer.work.weixin.qq.com/document/path/98152) and comes back with a code; Kashi,
// as the app (gettoken, developer.work.weixin.qq.com/document/path/91039), reads whose code it
// is (auth/getuserinfo, developer.work.weixin.qq.com/document/path/91023), the member
// (user/get, developer.work.weixin.qq.com/document/path/90196) and each department's name
// (department/get, developer.work.weixin.qq.com/document/path/95351).

func (c *Chat) weCom(ctx context.Context, code string) (Identity, error) {
	var who struct {
		UserID string `json:"userid"`
		OpenID string `json:"openid"`
	}
	if err := c.weComAPI(ctx, "/cgi-bin/auth/getuserinfo", url.Values{"code": {code}}, &who); err != nil {
		return Identity{}, err
	}
	if who.UserID == "" { // someone from outside the corporation: an openid only
		return Identity{}, fmt.Errorf("not a member of the corporation: %w", ErrRefused)
	}
	var user struct {
		UserID     string  `json:"userid"`
		Email      string  `json:"email"`
		BizMail    string  `json:"biz_mail"`
		Department []int64 `json:"department"`
		Status     int     `json:"status"`
	}
	if err := c.weComAPI(ctx, "/cgi-bin/user/get", url.Values{"userid": {who.UserID}}, &user); err != nil {
		return Identity{}, err
	}
	if user.Status != 0 && user.Status != 1 { // 1 active; 2 disabled, 4 not activated, 5 left
		return Identity{}, fmt.Errorf("member %s has status %d: %w", who.UserID, user.Status, ErrRefused)
	}
	// A WeCom userid is ASCII and what the members know each other by: it is the name.
	id := Identity{ID: who.UserID, ChatID: who.UserID, Name: who.UserID, Email: firstOf(user.BizMail, user.Email), Groups: []string{}}
	for _, d := range user.Department[:min(len(user.Department), maxGroups)] {
		var dept struct {
			Department struct {
				Name string `json:"name"`
			} `json:"department"`
		}
		if err := c.weComAPI(ctx, "/cgi-bin/department/get", url.Values{"id": {strconv.FormatInt(d, 10)}}, &dept); err != nil {
			return Identity{}, err
		}
		id.Groups = append(id.Groups, strconv.FormatInt(d, 10))
		if dept.Department.Name != "" {
			id.Groups = append(id.Groups, dept.Department.Name)
		}
	}
	return id, nil
}

// weComAPI gets path with q as the app into out. An invalid or used code (40029) or a member
// outside the app's range (60011, 60111: no such userid) is ErrRefused; an expired or invalid
// access token (42001, 40014) is asked for again once.
func (c *Chat) weComAPI(ctx context.Context, path string, q url.Values, out any) error {
	for try := 0; ; try++ {
		tok, err := c.appToken(ctx, c.weComToken)
		if err != nil {
			return err
		}
		q.Set("access_token", tok)
		var head struct {
			ErrCode int    `json:"errcode"`
			ErrMsg  string `json:"errmsg"`
		}
		if _, err := c.call(ctx, http.MethodGet, c.cfg.APIURL+path+"?"+q.Encode(), nil, nil, &head, out); err != nil {
			return err
		}
		switch head.ErrCode {
		case 0:
			return nil
		case 40029, 60011, 60111:
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

// weComToken asks for the app's access token with the corporation's id and the app's secret.
func (c *Chat) weComToken(ctx context.Context) (string, time.Duration, error) {
	var tok struct {
		ErrCode     int    `json:"errcode"`
		ErrMsg      string `json:"errmsg"`
		AccessToken string `json:"access_token"`
		ExpiresIn   int64  `json:"expires_in"`
	}
	q := url.Values{"corpid": {c.cfg.ClientID}, "corpsecret": {c.cfg.Secret}}
	if _, err := c.call(ctx, http.MethodGet, c.cfg.APIURL+"/cgi-bin/gettoken?"+q.Encode(), nil, nil, &tok); err != nil {
		return "", 0, err
	} else if tok.ErrCode != 0 {
		return "", 0, fmt.Errorf("the app's access token: %d %s", tok.ErrCode, tok.ErrMsg)
	}
	return tok.AccessToken, time.Duration(tok.ExpiresIn) * time.Second, nil
}
