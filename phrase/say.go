package phrase

import (
	"fmt"
	"strings"
	"time"
)

// The prefixes of catalog keys named from codes rather than spelled out.
const (
	// SayKeyPrefix starts the catalog key of every phrase code: "say." + code.
	SayKeyPrefix = "say."
	// PoolFieldKeyPrefix begins the catalog keys of the pool settings' labels, help texts and
	// groups: "poolfield.<name>", "poolfield.<name>.help", "poolfield.group.<group>". Handlers
	// name them from the settings table, so no literal key in views spells them out.
	PoolFieldKeyPrefix = "poolfield."
	// AuditFieldKeyPrefix and AuditActionKeyPrefix begin the catalog keys of the audit log's
	// field and action names; a name without a key is shown as it is.
	AuditFieldKeyPrefix  = "audit.field."
	AuditActionKeyPrefix = "audit.action."
	// AuditSubjectKeyPrefix begins the catalog keys of the sentences the audit log's
	// subjects read as ("audit.subject.<pattern>"), AuditValueKeyPrefix those of the words
	// of codes its fields hold that no page names elsewhere ("audit.value.<field>.<code>").
	AuditSubjectKeyPrefix = "audit.subject."
	AuditValueKeyPrefix   = "audit.value."
)

// Say writes a sentence the server made in the locale's language: each phrase through the
// catalog entry "say.<code>", its arguments written as the locale writes counts, durations
// and percentages, the phrases joined by the locale's separator. A code the catalogs lack is
// written as List.String writes it, so nothing is lost.
func (l Locale) Say(list List) string {
	var b strings.Builder
	for i, p := range list {
		if i > 0 {
			b.WriteString(l.T(SayKeyPrefix + "sep"))
		}
		args := make([]any, len(p.Args))
		for j, a := range p.Args {
			args[j] = l.sayArg(a)
		}
		if _, ok := l.catalog()[SayKeyPrefix+p.Code]; !ok {
			b.WriteString(List{p}.String())
			continue
		}
		b.WriteString(l.T(SayKeyPrefix+p.Code, args...))
	}
	return b.String()
}

// SayText is Say of a list stored as text (List.Encode); text that is no such list,
// such as an English sentence stored before phrases existed, is shown as it is.
func (l Locale) SayText(s string) string {
	if list, ok := Decode(s); ok {
		return l.Say(list)
	}
	return s
}

func (l Locale) sayArg(a Arg) string {
	switch a.Kind {
	case Count:
		return l.Int(int(a.N))
	case Seconds:
		return l.Duration(time.Duration(a.N) * time.Second)
	case Percent:
		return l.Percent(int(a.N))
	}
	return a.S
}

// Invalid writes a bad field's message (models.FieldError) in the locale's language: the
// field's label (its name when it has none), then the message (Problem).
func (l Locale) Invalid(field, format string, args []any, msg string) string {
	return formFieldLabel(l, field) + l.T("valid.sep") + l.Problem(format, args, msg)
}

// Problem is a validation message in the locale's language: format with args, format looked
// up in the validation catalog (validZH) for Chinese. A message without a format, or one the
// catalog lacks, is msg as it is.
func (l Locale) Problem(format string, args []any, msg string) string {
	if l.Code() == LangZH && format != "" {
		if z, ok := validZH[format]; ok {
			return fmt.Sprintf(z, args...)
		}
	}
	return msg
}

// formFieldLabel is the label of a form field a message names: a pool setting's, or one of the
// forms' fields (a quota's and a request's among them); any other field (a JSON path) is its
// name.
func formFieldLabel(l Locale, field string) string {
	if _, ok := l.catalog()[PoolFieldKeyPrefix+field]; ok {
		return l.T(PoolFieldKeyPrefix + field)
	}
	switch field {
	case "name":
		return l.T("field.name")
	case "password":
		return l.T("field.password")
	case "current":
		return l.T("field.current")
	case "role":
		return l.T("field.role")
	case "value":
		return l.T("field.value")
	case "reason":
		return l.T("field.reason")
	case "project":
		return l.T("field.project")
	// A quota's fields and a request's change, as the quota form, the request form and the
	// approvals page label them.
	case "max_gpus":
		return l.T("padmin.max_gpus")
	case "guaranteed_gpus":
		return l.T("padmin.guaranteed_gpus")
	case "budget_card_hours":
		return l.T("padmin.budget")
	case "add_card_hours":
		return l.T("requests.kind.budget")
	case "override_max_gpus":
		return l.T("requests.kind.override")
	case "reserve_gpus":
		return l.T("field.reserve_gpus")
	case "contract_max_gpus":
		return l.T("padmin.contract_max_gpus")
	case "contract_guaranteed_gpus":
		return l.T("padmin.contract_guaranteed_gpus")
	case "contract_budget_card_hours":
		return l.T("padmin.contract_budget")
	}
	return field
}
