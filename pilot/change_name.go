package pilot

import (
	"net/url"
	"strconv"

	"kashi/phrase"
)

// Name names the change in l: "Pool a100, version 3", "Price of A100 from 2026-04", "Quota
// of vision on A100", "Idle reclaim of vision".
func (c Change) Name(l phrase.Locale) string {
	switch c.Ref.Kind {
	case KindReclaim:
		return l.T("change.reclaim_name", c.Reclaim.Project)
	case KindQuota:
		spec := c.Quota.New.Spec
		if spec == "" {
			spec = l.T("change.quota_every_spec")
		}
		return l.T("change.quota_name", c.Quota.Project, spec)
	case KindPrice:
		if c.Price.Project != "" {
			return l.T("change.price_name_project", c.Price.Spec, c.Price.Project, c.Price.FromMonth)
		}
		return l.T("change.price_name", c.Price.Spec, c.Price.FromMonth)
	}
	return l.T("report.change", c.Pool, c.Version)
}

// Who is who made the change, in l: a pool version's author; a price is the price list's.
func (c Change) Who(l phrase.Locale) string {
	if c.Ref.Kind == KindPrice {
		return l.T("change.price_list")
	}
	return c.By
}

// Path is the change's page under the server's root.
func (r Ref) Path() string {
	switch r.Kind {
	case KindPrice:
		return "/prices/changes/" + strconv.FormatInt(r.ID, 10)
	case KindQuota:
		return "/projects/" + strconv.FormatInt(r.Project, 10) + "/quota-changes/" + strconv.FormatInt(r.ID, 10)
	case KindReclaim:
		return "/projects/" + strconv.FormatInt(r.Project, 10) + "/reclaim-changes/" + strconv.FormatInt(r.ID, 10)
	}
	return "/pools/" + url.PathEscape(r.Pool) + "/changes/" + strconv.Itoa(r.Version)
}
