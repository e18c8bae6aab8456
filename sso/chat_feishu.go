package sso

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"
)

// Feishu's (and Lark's) web login: the browser signs in at accounts.feishu.cn and comes back
// with a code; Kashi exchanges it for the person's user_access_token
// (open.feishu.cn/document/uAjLw4CM/ukTMukTMukTM/authentication-management/access-token/get-user-access-token),
// reads who they are with it (open.feishu.cn/document/uAjLw4CM/ukTMukTMukTM/reference/authen-v1/user_info/get),
// then, as the app (open.feishu.cn/document/server-docs/authentication-management/access-token/tenant_access_token_internal),
// their departments and status (open.feishu.cn/document/server-docs/contact-v3/user/get) and
// each department's name (open.feishu.cn/document/server-docs/contact-v3/department/get).

// feishuHead is every Feishu answer's head: code 0 is success.
type feishuHead struct {
	Code int    `json:"code"`
	Msg  string `json:"msg"`
	// Error and ErrorDescription are the v2 token endpoint's (RFC 6749) error.
	Error            string `json:"error"`
	ErrorDescription string `json:"error_description"`
}

func (c *Chat) feishu(ctx context.Context, code string) (Identity, error) {
	var tok struct {
		feishuHead
		AccessToken string `json:"access_token"`
	}
	status, err := c.call(ctx, http.MethodPost, c.cfg.APIURL+"/open-apis/authen/v2/oauth/token", nil, map[string]string{
		"grant_type": "authorization_code", "client_id": c.cfg.ClientID, "client_secret": c.cfg.Secret, "code": code, "redirect_uri": c.cfg.RedirectURL}, &tok)
	switch {
	case err != nil:
		return Identity{}, err
	case status >= 400 && status < 500 && tok.Code != 20050: // 20050: the server's own fault
		return Identity{}, fmt.Errorf("the code: %d %s %s: %w", tok.Code, tok.Error, tok.ErrorDescription, ErrRefused)
	case tok.Code != 0 || tok.AccessToken == "":
		return Identity{}, fmt.Errorf("the code: %d %d %s %s", status, tok.Code, tok.Error, tok.ErrorDescription)
	}
	var me struct {
		feishuHead
		Data struct {
			OpenID          string `json:"open_id"`
			UserID          string `json:"user_id"`
			Email           string `json:"email"`
			EnterpriseEmail string `json:"enterprise_email"`
		} `json:"data"`
	}
	if _, err := c.call(ctx, http.MethodGet, c.cfg.APIURL+"/open-apis/authen/v1/user_info", map[string]string{"Authorization": "Bearer " + tok.AccessToken}, nil, &me); err != nil {
		return Identity{}, err
	} else if me.Code != 0 || me.Data.OpenID == "" {
		return Identity{}, fmt.Errorf("who signed in: %d %s", me.Code, me.Msg)
	}
	var user struct {
		Data struct {
			User struct {
				DepartmentIDs []string `json:"department_ids"`
				Status        struct {
					IsFrozen   bool `json:"is_frozen"`
					IsResigned bool `json:"is_resigned"`
				} `json:"status"`
			} `json:"user"`
		} `json:"data"`
	}
	if err := c.feishuApp(ctx, "/open-apis/contact/v3/users/"+url.PathEscape(me.Data.OpenID)+"?user_id_type=open_id&department_id_type=open_department_id", &user); err != nil {
		return Identity{}, err
	}
	u := user.Data.User
	if u.Status.IsFrozen || u.Status.IsResigned {
		return Identity{}, fmt.Errorf("%s is frozen or resigned: %w", me.Data.OpenID, ErrRefused)
	}
	d := me.Data
	id := Identity{ID: d.OpenID, ChatID: d.OpenID, Email: firstOf(d.EnterpriseEmail, d.Email), Groups: []string{}}
	id.Name = loginName(id.Email, d.UserID, d.OpenID)
	for _, dep := range u.DepartmentIDs[:min(len(u.DepartmentIDs), maxGroups)] {
		var dept struct {
			Data struct {
				Department struct {
					Name string `json:"name"`
				} `json:"department"`
			} `json:"data"`
		}
		if err := c.feishuApp(ctx, "/open-apis/contact/v3/departments/"+url.PathEscape(dep)+"?department_id_type=open_department_id", &dept); err != nil {
			return Identity{}, err
		}
		id.Groups = append(id.Groups, dep)
		if n := dept.Data.Department.Name; n != "" {
			id.Groups = append(id.Groups, n)
		}
	}
	return id, nil
}

// feishuApp gets path of Feishu's contacts as the app (its tenant_access_token) into out; an
// invalid token (99991663) is asked for again once; a person the app may not see (40004,
// 41050: outside its contact range) is ErrRefused.
func (c *Chat) feishuApp(ctx context.Context, path string, out any) error {
	for try := 0; ; try++ {
		tok, err := c.appToken(ctx, c.feishuTenant)
		if err != nil {
			return err
		}
		var head feishuHead
		if _, err := c.call(ctx, http.MethodGet, c.cfg.APIURL+path, map[string]string{"Authorization": "Bearer " + tok}, nil, &head, out); err != nil {
			return err
		}
		switch head.Code {
		case 0:
			return nil
		case 40004, 41050:
			return fmt.Errorf("%s: %d %s: %w", path, head.Code, head.Msg, ErrRefused)
		case 99991663:
			if try == 0 {
				c.dropAppToken()
				continue
			}
		}
		return fmt.Errorf("%s: %d %s", path, head.Code, head.Msg)
	}
}

// feishuTenant asks for the app's tenant_access_token.
func (c *Chat) feishuTenant(ctx context.Context) (string, time.Duration, error) {
	var tok struct {
		feishuHead
		Token  string `json:"tenant_access_token"`
		Expire int64  `json:"expire"`
	}
	if _, err := c.call(ctx, http.MethodPost, c.cfg.APIURL+"/open-apis/auth/v3/tenant_access_token/internal", nil,
		map[string]string{"app_id": c.cfg.ClientID, "app_secret": c.cfg.Secret}, &tok); err != nil {
		return "", 0, err
	} else if tok.Code != 0 {
		return "", 0, fmt.Errorf("the app's tenant_access_token: %d %s", tok.Code, tok.Msg)
	}
	return tok.Token, time.Duration(tok.Expire) * time.Second, nil
}
