package bills

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/a-h/templ"

	"kashi/phrase"
	"kashi/views"
)

// Helpers of prices.templ.

// priceScope names whom a price applies to: a project, or the default list.
func priceScope(l phrase.Locale, project string) string {
	if project == "" {
		return l.T("prices.default_list")
	}
	return project
}

// versionState says whether a version not in force is planned (later than month) or
// replaced by a later one.
func versionState(l phrase.Locale, from, month string) string {
	if from > month {
		return l.T("prices.planned")
	}
	return l.T("prices.replaced")
}

// planTerms is a plan's terms in words: the package, the unit price, or the size classes.
func planTerms(l phrase.Locale, p PlanRow) string {
	switch p.Mode {
	case "reserved":
		return l.T("plans.terms_package", l.Int(p.PackageCards), p.PackageSpec, views.Yuan(p.PackageFeeFen))
	case "per-task":
		if len(p.SizeClasses) == 0 {
			return l.T("plans.terms_unit", views.Yuan(p.UnitPriceFen))
		}
		parts := make([]string, len(p.SizeClasses))
		for i, c := range p.SizeClasses {
			if c.MaxCardHours == 0 {
				parts[i] = l.T("plans.class_open", c.Name, views.Yuan(c.PriceFen))
			} else {
				parts[i] = l.T("plans.class", c.Name, strconv.FormatInt(c.MaxCardHours, 10), views.Yuan(c.PriceFen))
			}
		}
		return strings.Join(parts, "; ")
	}
	return l.T("plans.terms_payg")
}

// PriceSavedNotice confirms a price saved on the prices page.
func PriceSavedNotice(l phrase.Locale, spec, month string) string {
	return l.T("prices.saved", spec, month)
}

// PlanSavedNotice confirms a billing plan saved on the prices page.
func PlanSavedNotice(l phrase.Locale, project, month string) string {
	return l.T("plans.saved", project, month)
}

// priceFixURL opens the price form prefilled with a spec and a month.
func priceFixURL(spec, month string) templ.SafeURL {
	return templ.SafeURL("/prices?spec=" + url.QueryEscape(spec) + "&month=" + url.QueryEscape(month) + "#price-form")
}

// priceVersionText names a price version a bill used.
func priceVersionText(l phrase.Locale, v BillPriceVersion) string {
	scope := l.T("prices.default_list")
	if v.Own {
		scope = l.T("bill.own_price")
	}
	return l.T("bill.price_version", v.Spec, views.Yuan(v.RateFen), views.Yuan(v.OverflowRateFen), scope, v.FromMonth)
}

// adjustAction is the adjustment form's target.
func adjustAction(project, month string) templ.SafeURL {
	return templ.SafeURL("/bills/" + url.PathEscape(project) + "/" + month + "/adjustments")
}

// AdjustedNotice confirms an adjustment added to a bill.
func AdjustedNotice(l phrase.Locale, project, month string) string {
	return l.T("adjust.saved", project, month)
}

// AdjustIssued says a bill is issued, so the adjustment belongs on a later month.
func AdjustIssued(l phrase.Locale, project, month string) string {
	return l.T("adjust.issued", project, month)
}
