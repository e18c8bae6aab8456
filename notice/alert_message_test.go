package notice_test

import (
	"strings"
	"testing"
	"time"

	"kashi/models"
	"kashi/notice"
	"kashi/phrase"
)

// TestAlertMessage: chat messages of alerts are worded in the installation's language
// through the catalogs, what they are about too, with the count and the resolve time.
func TestAlertMessage(t *testing.T) {
	at := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	res := at.Add(time.Hour)
	a := models.Alert{Kind: models.AlertBootTimeout, Subject: "a100/k1", Code: "boot_timeout", Params: `["a100","k1"]`,
		Severity: models.SeverityWarning, At: at, LastAt: at, Count: 2}
	for name, c := range map[string]struct {
		lang        string
		a           models.Alert
		title, text string
	}{
		"zh": {"zh-CN", a, "【警告】机器未能启动 · a100/k1", "资源池 a100：机器 k1 未按时注册，已删除。 （已触发 2 次，首次于 2026-03-02 09:00 UTC）"},
		"en": {"en", a, "[Warning] Machine did not boot · a100/k1", "Pool a100: machine k1 did not register in time; it is deleted. (raised 2 times since 2026-03-02 09:00 UTC)"},
		// Times are written in the configured zone, with the zone named.
		"en in Shanghai": {"en", a, "[Warning] Machine did not boot · a100/k1", "Pool a100: machine k1 did not register in time; it is deleted. (raised 2 times since 2026-03-02 17:00 CST)"},
		"en resolved": {"en", models.Alert{Kind: a.Kind, Subject: a.Subject, Code: a.Code, Params: a.Params, At: at, LastAt: at,
			Count: 1, ResolvedAt: &res}, "Resolved: Machine did not boot · a100/k1",
			"Pool a100: machine k1 did not register in time; it is deleted. Resolved at 2026-03-02 10:00 UTC."},
		// What it is about reads in the language too: a machine of its pool.
		"zh with its pool": {"zh-CN", models.Alert{Kind: a.Kind, Subject: a.Subject, Pool: "a100", Code: a.Code, Params: a.Params,
			Severity: a.Severity, At: at, LastAt: at, Count: 1}, "【警告】机器未能启动 · 机器 k1（资源池 a100）", "资源池 a100：机器 k1 未按时注册，已删除。"},
		"legacy text": {"zh-CN", models.Alert{Kind: "boot-timeout", Subject: "x", Message: "old text", Count: 1},
			"【警告】机器未能启动 · x", "old text"},
	} {
		loc := time.UTC
		if strings.HasSuffix(name, "Shanghai") {
			loc, _ = time.LoadLocation("Asia/Shanghai")
		}
		m := notice.AlertMessage(c.a, phrase.Locale{Lang: c.lang}, loc)
		if m.Title != c.title || m.Text != c.text {
			t.Errorf("%s: AlertMessage = %q, %q; want %q, %q", name, m.Title, m.Text, c.title, c.text)
		}
	}
}
