package notify

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	tests := map[string]struct {
		spec string
		want Channel
	}{
		"webhook": {"webhook:https://hooks.example.com/kashi?t=1", Webhook{URL: "https://hooks.example.com/kashi?t=1"}},
		"webhook signed, as Alertmanager": {"webhook:https://hooks.example.com/k#secret=s%2B1&format=alertmanager",
			Webhook{URL: "https://hooks.example.com/k", Secret: "s+1", Alertmanager: true}},
		"bare url": {"http://10.0.0.5:8080/hook", Webhook{URL: "http://10.0.0.5:8080/hook"}},
		"dingtalk signed": {"dingtalk:https://oapi.dingtalk.com/robot/send?access_token=abc#secret=SEC123",
			DingTalk{URL: "https://oapi.dingtalk.com/robot/send?access_token=abc", Secret: "SEC123"}},
		"dingtalk unsigned": {"dingtalk:https://oapi.dingtalk.com/robot/send?access_token=abc",
			DingTalk{URL: "https://oapi.dingtalk.com/robot/send?access_token=abc"}},
		"feishu": {"feishu:https://open.feishu.cn/open-apis/bot/v2/hook/xyz#secret=s3cr%2Bt",
			Feishu{URL: "https://open.feishu.cn/open-apis/bot/v2/hook/xyz", Secret: "s3cr+t"}},
		"lark": {"lark:https://open.larksuite.com/open-apis/bot/v2/hook/xyz",
			Feishu{URL: "https://open.larksuite.com/open-apis/bot/v2/hook/xyz"}},
		"wecom": {"wecom:https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=k1",
			WeCom{URL: "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=k1"}},
		"kind case and spaces": {"  DingTalk:https://oapi.dingtalk.com/robot/send?access_token=a ",
			DingTalk{URL: "https://oapi.dingtalk.com/robot/send?access_token=a"}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := Parse(tc.spec)
			if err != nil {
				t.Fatalf("Parse(%q) = %v", tc.spec, err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tc.spec, diff)
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	for _, spec := range []string{
		"",
		"dingtalk:",
		"dingtalk:ftp://oapi.dingtalk.com/robot/send",
		"dingtalk:file:///etc/passwd",
		"webhook:javascript:alert(1)",
		"dingtalk:https:///no-host",
		"slack:https://hooks.slack.com/x",
		"wecom:https://qyapi.weixin.qq.com/send?key=k#secret=s",
		"webhook:https://example.com/h#format=slack",
		"dingtalk:https://oapi.dingtalk.com/robot/send?access_token=a#format=alertmanager",
		"dingtalk:https://oapi.dingtalk.com/robot/send#token=x",
		"dingtalk:https://oapi.dingtalk.com/robot/send#secret=",
		"not a url",
	} {
		if ch, err := Parse(spec); err == nil {
			t.Errorf("Parse(%q) = %v, want an error", spec, ch)
		}
	}
}

// TestChannelsHideSecrets: however a channel is printed, its token and secret stay out.
func TestChannelsHideSecrets(t *testing.T) {
	for _, spec := range []string{
		"dingtalk:https://oapi.dingtalk.com/robot/send?access_token=TOKEN42#secret=SECRET42",
		"feishu:https://open.feishu.cn/open-apis/bot/v2/hook/TOKEN42#secret=SECRET42",
		"wecom:https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=TOKEN42",
		"webhook:https://hooks.example.com/TOKEN42",
		"webhook:https://hooks.example.com/TOKEN42#secret=SECRET42&format=alertmanager",
	} {
		ch, err := Parse(spec)
		if err != nil {
			t.Fatalf("Parse(%q) = %v", spec, err)
		}
		for _, verb := range []string{"%v", "%+v", "%#v", "%s"} {
			if s := fmt.Sprintf(verb, ch); strings.Contains(s, "TOKEN42") || strings.Contains(s, "SECRET42") {
				t.Errorf("Sprintf(%q, %s) = %q shows a secret", verb, spec, s)
			}
		}
	}
	if got := fmt.Sprint(DingTalk{URL: "https://oapi.dingtalk.com/robot/send?access_token=x", Secret: "s"}); got != "dingtalk:https://oapi.dingtalk.com/… (signed)" {
		t.Errorf("String() = %q", got)
	}
}
