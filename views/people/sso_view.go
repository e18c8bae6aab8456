package people

import (
	"kashi/phrase"
	"kashi/views"
)

// ssoMethod names a directory or team chat.
func ssoMethod(l phrase.Locale, m string) string {
	switch m {
	case "ldap":
		return l.T("sso.method.ldap")
	case "dingtalk", "feishu", "wecom":
		return ChatName(l, m)
	}
	return l.T("sso.method.oidc")
}

// ChatName is a team chat's name in the page's language: 钉钉 or DingTalk, 飞书 or Feishu,
// 企业微信 or WeCom.
func ChatName(l phrase.Locale, platform string) string {
	switch platform {
	case "dingtalk":
		return l.T("chat.dingtalk")
	case "feishu":
		return l.T("chat.feishu")
	}
	return l.T("chat.wecom")
}

// ssoRole names a rule's role: a project's (lead, member) or a site's.
func ssoRole(l phrase.Locale, r string) string {
	switch r {
	case "lead":
		return l.T("role.lead")
	case "member":
		return l.T("role.member")
	}
	return views.RoleLabel(l, r)
}
