package people

import (
	"regexp"

	"kashi/phrase"
)

// auditSubject is how an entry's subject, stored as the English words its writer chose
// ("quota A100-80G by request 3", "bill vision 2026-02"), reads in the page's language:
// the first pattern that matches gives the catalog's sentence (phrase.AuditSubjectKeyPrefix
// and the pattern's key) with the parts it took, a request's kind and "(all specs)" in
// words. A subject no pattern knows is shown as stored.
type auditSubject struct {
	re  *regexp.Regexp
	key string
	// kinds marks the parts that are a request's kind; specs those that are a spec or
	// "(all specs)".
	kinds, specs []int
}

// auditSubjects are the subjects the log's writers make, most particular first.
var auditSubjects = []auditSubject{
	{re: regexp.MustCompile(`^login$`), key: "login"},
	{re: regexp.MustCompile(`^token$`), key: "token"},
	{re: regexp.MustCompile(`^token (\d+) of (.+)$`), key: "token_of"},
	{re: regexp.MustCompile(`^token (.+)$`), key: "token_named"},
	{re: regexp.MustCompile(`^member (.+)$`), key: "member"},
	{re: regexp.MustCompile(`^request (\d+): (\S+) (.+)$`), key: "request_kind", kinds: []int{2}, specs: []int{3}},
	{re: regexp.MustCompile(`^request (\d+)$`), key: "request"},
	{re: regexp.MustCompile(`^quota (.+) by request (\d+)$`), key: "quota_by_request", specs: []int{1}},
	{re: regexp.MustCompile(`^quota (.+)$`), key: "quota", specs: []int{1}},
	{re: regexp.MustCompile(`^task (\d+)$`), key: "task_id"},
	{re: regexp.MustCompile(`^task (.+)$`), key: "task"},
	{re: regexp.MustCompile(`^user (.+)$`), key: "user"},
	{re: regexp.MustCompile(`^project (.+)$`), key: "project"},
	{re: regexp.MustCompile(`^pool (.+)$`), key: "pool"},
	{re: regexp.MustCompile(`^price (\S+) from (\S+)$`), key: "price"},
	{re: regexp.MustCompile(`^plan from (\S+)$`), key: "plan"},
	{re: regexp.MustCompile(`^bill (.+) (\d{4}-\d{2})$`), key: "bill"},
	{re: regexp.MustCompile(`^billing$`), key: "billing"},
	{re: regexp.MustCompile(`^machine (.+)$`), key: "machine"},
	{re: regexp.MustCompile(`^node (.+)$`), key: "node"},
	{re: regexp.MustCompile(`^template (.+)$`), key: "template"},
	{re: regexp.MustCompile(`^shared join token$`), key: "shared_join_token"},
	{re: regexp.MustCompile(`^reservation (\d+) by request (\d+)$`), key: "reservation_by_request"},
	{re: regexp.MustCompile(`^reservation (\d+)$`), key: "reservation"},
	{re: regexp.MustCompile(`^pipeline (\d+)$`), key: "pipeline"},
	{re: regexp.MustCompile(`^sso rule (\w+):(.+)$`), key: "sso_rule"},
}

// allSpecs is what a subject says for a quota or request on every spec (models' specLabel).
const allSpecs = "(all specs)"

// subject writes a stored subject in the page's language.
func (w auditWords) subject(s string) string {
	for _, p := range auditSubjects {
		m := p.re.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		args := make([]any, len(m)-1)
		for i, part := range m[1:] {
			args[i] = part
		}
		for _, i := range p.kinds {
			args[i-1] = w.term("kind", m[i])
		}
		for _, i := range p.specs {
			if m[i] == allSpecs {
				args[i-1] = w.l.T("quota.all_specs")
			}
		}
		return w.l.T(phrase.AuditSubjectKeyPrefix+p.key, args...)
	}
	return s
}
