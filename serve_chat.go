package main

import (
	"fmt"
	"strings"

	"kashi/sso"
)

// chatFlags defines the team chats' login flags on f: one app each of DingTalk, Feishu (or
// Lark) and WeCom.
func chatFlags(f *flags, c *[3]sso.ChatConfig) {
	d, fs, w := &c[0], &c[1], &c[2]
	d.Platform, fs.Platform, w.Platform = sso.DingTalk, sso.Feishu, sso.WeCom
	f.String(&d.ClientID, "dingtalk-client-id", "", "DingTalk login: the app's Client ID (AppKey); needs --public-url, its redirect URL is PUBLIC-URL/login/chat/dingtalk/callback")
	f.Secret(&d.Secret, "dingtalk-client-secret", "DingTalk login: the app's Client Secret (AppSecret)")
	f.String(&d.LoginURL, "dingtalk-login-url", "https://login.dingtalk.com", "DingTalk login: where people sign in")
	f.String(&d.APIURL, "dingtalk-api-url", "https://api.dingtalk.com", "DingTalk login: the API")
	f.String(&d.OldAPIURL, "dingtalk-oapi-url", "https://oapi.dingtalk.com", "DingTalk login: the older API (topapi)")
	f.String(&fs.ClientID, "feishu-app-id", "", "Feishu (Lark) login: the app's App ID (cli_…); its redirect URL is PUBLIC-URL/login/chat/feishu/callback")
	f.Secret(&fs.Secret, "feishu-app-secret", "Feishu (Lark) login: the app's App Secret")
	f.String(&fs.LoginURL, "feishu-login-url", "https://accounts.feishu.cn", "Feishu login: where people sign in (Lark: https://accounts.larksuite.com)")
	f.String(&fs.APIURL, "feishu-api-url", "https://open.feishu.cn", "Feishu login: the API (Lark: https://open.larksuite.com)")
	f.String(&w.ClientID, "wecom-corp-id", "", "WeCom login: the corporation's CorpID; its redirect URL is PUBLIC-URL/login/chat/wecom/callback")
	f.String(&w.AgentID, "wecom-agent-id", "", "WeCom login: the app's AgentId")
	f.Secret(&w.Secret, "wecom-secret", "WeCom login: the app's Secret")
	f.String(&w.LoginURL, "wecom-login-url", "https://login.work.weixin.qq.com", "WeCom login: where people sign in")
	f.String(&w.APIURL, "wecom-api-url", "https://qyapi.weixin.qq.com", "WeCom login: the API")
}

// checkChats checks each chat whose app id is given: it needs its secret (and WeCom its
// agent id), the public URL its callback is under, and http(s) URLs.
func checkChats(chats [3]sso.ChatConfig, publicURL string) error {
	for _, c := range chats {
		if c.ClientID == "" {
			continue
		}
		if publicURL == "" {
			return fmt.Errorf("%s login needs --public-url: the chat sends people back to PUBLIC-URL/login/chat/%s/callback", c.Platform, c.Platform)
		}
		for _, u := range []string{c.LoginURL, c.APIURL, c.OldAPIURL} {
			if u != "" && !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") {
				return fmt.Errorf("%s login: %q is not an http(s) URL", c.Platform, u)
			}
		}
		c.RedirectURL = publicURL
		if _, err := sso.NewChat(c); err != nil {
			return fmt.Errorf("%w: give its --%s", err, map[string]string{sso.DingTalk: "dingtalk-client-secret",
				sso.Feishu: "feishu-app-secret", sso.WeCom: "wecom-secret and --wecom-agent-id"}[c.Platform])
		}
	}
	return nil
}

// chats are the team chats people sign in through, those configured.
func (c *ssoConfig) chats(publicURL string) ([]*sso.Chat, error) {
	var out []*sso.Chat
	for _, cfg := range c.Chats {
		if cfg.ClientID == "" {
			continue
		}
		cfg.RedirectURL = strings.TrimSuffix(publicURL, "/") + "/login/chat/" + cfg.Platform + "/callback"
		chat, err := sso.NewChat(cfg)
		if err != nil {
			return nil, err
		}
		out = append(out, chat)
	}
	return out, nil
}
