package views

import (
	"strings"
	"time"

	"kashi/phrase"
)

// Alert sentences: an alert carries a code and string parameters (models.AlertInput), and
// pages and chat messages render them here through the catalogs, so an alert reads in the
// viewer's language on the page and in the installation's language in chat.

// AlertSentence is the sentence of an alert: its code rendered with params, or legacy (the
// stored text of alerts raised before codes) when the code is empty or unknown.
func AlertSentence(l phrase.Locale, code string, params []string, legacy string) string {
	p := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			if i < len(params) {
				out[i] = params[i]
			} else {
				out[i] = "?"
			}
		}
		return out
	}
	switch code {
	case "boot_timeout":
		return l.T("alert.msg.boot_timeout", p(2)...)
	case "machine_failed":
		return l.T("alert.msg.machine_failed", p(2)...)
	case "no_provider":
		return l.T("alert.msg.no_provider", p(2)...)
	case "provider_error":
		return l.T("alert.msg.provider_error", p(2)...)
	case "machine_vanished":
		return l.T("alert.msg.machine_vanished", p(4)...)
	case "orphan_deleted":
		return l.T("alert.msg.orphan_deleted", p(3)...)
	case "machine_not_created":
		return l.T("alert.msg.machine_not_created", p(3)...)
	case "machines_not_created":
		return l.T("alert.msg.machines_not_created", p(4)...)
	case "create_retried":
		return l.T("alert.msg.create_retried", p(3)...)
	case "pool_at_max":
		return l.T("alert.msg.pool_at_max", p(4)...)
	case "gpu_memory":
		return l.T("alert.msg.gpu_memory", p(9)...)
	case "unmanaged_gpu":
		return l.T("alert.msg.unmanaged_gpu", p(3)...)
	case "service_ttft":
		return l.T("alert.msg.service_ttft", p(7)...)
	case "service_down":
		return l.T("alert.msg.service_down", p(6)...)
	case "service_idle":
		return l.T("alert.msg.service_idle", p(5)...)
	}
	if legacy == "" && code != "" {
		return code + " " + strings.Join(params, " ")
	}
	return legacy
}

// severityText names a severity.
func severityText(l phrase.Locale, sev string) string {
	switch sev {
	case "critical":
		return l.T("alert.sev.critical")
	case "info":
		return l.T("alert.sev.info")
	}
	return l.T("alert.sev.warning")
}

// AlertChat is the title and text of an alert's chat message in l, the installation's
// language: its kind, severity and subject, its sentence, how often it was raised, and when
// it was resolved.
func AlertChat(l phrase.Locale, a AlertView, loc *time.Location) (title, text string) {
	stamp := func(t time.Time) string { return t.In(loc).Format("2006-01-02 15:04 MST") }
	head := l.T("alert.chat.title", severityText(l, a.Severity), alertKindText(l, a.Kind), a.Subject)
	text = AlertSentence(l, a.Code, a.Params, a.Message)
	if a.Count > 1 {
		text += " " + l.T("alert.chat.repeated", a.Count, stamp(a.At))
	}
	if a.ResolvedAt != nil {
		head = l.T("alert.chat.resolved_title", alertKindText(l, a.Kind), a.Subject)
		text += " " + l.T("alert.chat.resolved_at", stamp(*a.ResolvedAt))
	}
	return head, text
}
