package phrase

import (
	"regexp"
	"strings"
)

// Alert sentences: an alert carries a code and string parameters (models.AlertInput), and
// pages and chat messages write them here through the catalogs, so an alert reads in the
// viewer's language on the page and in the installation's language in chat.

// AlertSentence is the sentence of an alert: its code rendered with params, or legacy (the
// stored text of alerts raised before codes) when the code is empty or unknown.
func (l Locale) AlertSentence(code string, params []string, legacy string) string {
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
	case "pool_failing":
		return l.T("alert.msg.pool_failing", p(2)...)
	case "gpu_memory":
		return l.T("alert.msg.gpu_memory", p(9)...)
	case "unmanaged_gpu":
		return l.T("alert.msg.unmanaged_gpu", p(3)...)
	case "gpu_xid":
		return l.T("alert.msg.gpu_xid", p(3)...)
	case "service_ttft":
		return l.T("alert.msg.service_ttft", p(7)...)
	case "service_down":
		return l.T("alert.msg.service_down", p(6)...)
	case "service_idle":
		return l.T("alert.msg.service_idle", p(5)...)
	case "node_claim_hostname":
		return l.T("alert.msg.node_claim_hostname", p(2)...)
	case "node_claim_machine":
		return l.T("alert.msg.node_claim_machine", p(3)...)
	case "node_claim_gpu":
		return l.T("alert.msg.node_claim_gpu", p(4)...)
	}
	if legacy == "" && code != "" {
		return code + " " + strings.Join(params, " ")
	}
	return legacy
}

// AlertKind names an alert's kind (models' alert kinds); an unknown kind is shown as it is.
func (l Locale) AlertKind(kind string) string {
	switch kind {
	case "boot-timeout":
		return l.T("alerts.kind.boot_timeout")
	case "scale-failed":
		return l.T("alerts.kind.scale_failed")
	case "machine-vanished":
		return l.T("alerts.kind.machine_vanished")
	case "orphan-deleted":
		return l.T("alerts.kind.orphan_deleted")
	case "gpu-memory":
		return l.T("alerts.kind.gpu_memory")
	case "idle-cards":
		return l.T("alerts.kind.idle_cards")
	case "quota":
		return l.T("alerts.kind.quota")
	case "pool-at-max":
		return l.T("alerts.kind.pool_at_max")
	case "pool-failing":
		return l.T("alerts.kind.pool_failing")
	case "unmanaged-gpu-use":
		return l.T("alerts.kind.unmanaged")
	case "gpu-xid":
		return l.T("alerts.kind.gpu_xid")
	case "service-ttft":
		return l.T("alerts.kind.service_ttft")
	case "service-down":
		return l.T("alerts.kind.service_down")
	case "service-idle":
		return l.T("alerts.kind.service_idle")
	case "node-claim":
		return l.T("alerts.kind.node_claim")
	}
	return kind
}

// Severity names an alert's severity: critical, info, or else warning.
func (l Locale) Severity(sev string) string {
	switch sev {
	case "critical":
		return l.T("alert.sev.critical")
	case "info":
		return l.T("alert.sev.info")
	}
	return l.T("alert.sev.warning")
}

// The subjects alerts are raised with: the English words their raisers chose, which also
// tell one open alert from another.
var (
	subjectTaskGPU = regexp.MustCompile(`^task (\d+) on (.+) GPU (\d+)$`)
	subjectService = regexp.MustCompile(`^service (\d+)$`)
	subjectGPU     = regexp.MustCompile(`^gpu (.+)$`)
	subjectNode    = regexp.MustCompile(`^node (.+)$`)
)

// AlertSubject is what an alert is about, stored as subject, in the locale's language: a
// task's card, a service, a GPU, a node (named node when its hostname is known), a pool (the
// alert's pool) or a machine of it ("pool/machine"). A subject of another shape is shown as
// stored.
func (l Locale) AlertSubject(subject, pool, node string) string {
	switch {
	case pool != "" && subject == pool:
		return l.T("alert.subject.pool", pool)
	case pool != "" && strings.HasPrefix(subject, pool+"/"):
		return l.T("alert.subject.machine", subject[len(pool)+1:], pool)
	}
	if m := subjectTaskGPU.FindStringSubmatch(subject); m != nil {
		return l.T("alert.subject.task_gpu", m[1], m[2], m[3])
	}
	if m := subjectService.FindStringSubmatch(subject); m != nil {
		return l.T("alert.subject.service", m[1])
	}
	if m := subjectGPU.FindStringSubmatch(subject); m != nil {
		return l.T("alert.subject.gpu", m[1])
	}
	if m := subjectNode.FindStringSubmatch(subject); m != nil {
		if node == "" {
			node = m[1]
		}
		return l.T("alert.subject.node", node)
	}
	return subject
}
