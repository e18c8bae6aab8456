package notify

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// Parse builds a channel from a configuration string of the form KIND:URL, where the robot's
// signing secret, when it has one, rides in the URL's fragment as #secret=… (a fragment is
// never sent to the server):
//
//	webhook:https://hooks.example.com/kashi#secret=SECRET&format=alertmanager
//	dingtalk:https://oapi.dingtalk.com/robot/send?access_token=TOKEN#secret=SEC0123…
//	feishu:https://open.feishu.cn/open-apis/bot/v2/hook/TOKEN#secret=SECRET
//	lark:https://open.larksuite.com/open-apis/bot/v2/hook/TOKEN#secret=SECRET
//	wecom:https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=KEY
//
// webhook posts the Message fields as JSON, or Alertmanager's webhook body with
// format=alertmanager, signed with SignatureHeader when it has a secret; dingtalk, feishu (or
// lark) and wecom post the robots' own formats (see DingTalk, Feishu, WeCom). A bare http(s)
// URL is a webhook. The URL must be http or https with a host; wecom takes no secret, and the
// secret is percent-decoded. The channels returned name themselves (String) without their tokens or
// secrets, so they may be logged.
func Parse(spec string) (Channel, error) {
	spec = strings.TrimSpace(spec)
	kind, rest, ok := strings.Cut(spec, ":")
	kind = strings.ToLower(kind)
	if !ok || kind == "http" || kind == "https" {
		kind, rest = "webhook", spec
	}
	u, err := url.Parse(rest)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("notify: channel %q: want KIND:http(s)://host/…", kind)
	}
	secret, format := "", ""
	if u.Fragment != "" || u.RawFragment != "" {
		frag := u.EscapedFragment()
		for _, kv := range strings.Split(frag, "&") {
			k, v, _ := strings.Cut(kv, "=")
			switch k {
			case "secret":
				if secret, err = url.PathUnescape(v); err != nil || secret == "" {
					return nil, fmt.Errorf("notify: channel %s: bad secret after #secret=", kind)
				}
			case "format":
				if kind != "webhook" || v != "alertmanager" {
					return nil, fmt.Errorf("notify: channel %s: format=%s (only a webhook takes format=alertmanager)", kind, v)
				}
				format = v
			default:
				return nil, fmt.Errorf("notify: channel %s: unknown option %q after # (want secret=…)", kind, k)
			}
		}
		u.Fragment, u.RawFragment = "", ""
	}
	target := u.String()
	switch kind {
	case "webhook":
		return Webhook{URL: target, Secret: secret, Alertmanager: format == "alertmanager"}, nil
	case "dingtalk":
		return DingTalk{URL: target, Secret: secret}, nil
	case "feishu", "lark":
		return Feishu{URL: target, Secret: secret}, nil
	case "wecom":
		if secret != "" {
			return nil, errors.New("notify: channel wecom: a WeCom robot takes no secret (its key is in the URL)")
		}
		return WeCom{URL: target}, nil
	}
	return nil, fmt.Errorf("notify: unknown channel kind %q (want webhook, dingtalk, feishu, lark or wecom)", kind)
}
