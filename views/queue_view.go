package views

import (
	"kashi/api"
	"kashi/phrase"
)

// LaneTitle is the heading of a lane.
func LaneTitle(l phrase.Locale, name string) string {
	switch name {
	case LaneShort:
		return l.T("queue.lane.short")
	case LaneService:
		return l.T("queue.lane.service")
	}
	return l.T("queue.lane.long")
}

// ReasonText explains why a task waits, in the page's language.
func ReasonText(l phrase.Locale, r QueueRow) string {
	switch r.Reason {
	case api.ReasonStarting:
		return l.T("reason.starting")
	case api.ReasonNew:
		return l.T("reason.new")
	case api.ReasonNoFreeGPUs:
		if r.Detail == DetailBooked {
			return l.T("reserve.reason_booked")
		}
		if r.ReasonSpec == "" {
			return l.T("reason.no_free_gpus_any")
		}
		return l.T("reason.no_free_gpus", r.ReasonSpec)
	case api.ReasonDataNotReady:
		if r.Detail == DetailDataCheckSilent {
			return l.T("reason.data_check_silent", l.Duration(r.DataCheckSilent))
		}
		return l.T("reason.data_not_ready")
	case api.ReasonOffPeakOnly:
		return l.T("reason.off_peak_only")
	case api.ReasonQuota:
		switch r.Detail {
		case DetailBudgetExhausted:
			return l.T("reason.quota_budget")
		case DetailConcurrentLimit:
			if q := r.Quota; q != nil {
				spec := q.Spec
				if spec == "" {
					spec = l.T("quota.all_specs")
				}
				return l.T("reason.quota_limit", spec, r.Project, l.Int(q.InUse), l.Int(q.Limit), l.Int(q.Needs))
			}
			return l.T("reason.quota_concurrent")
		case DetailGuaranteedShare:
			return l.T("reason.quota_guaranteed")
		case DetailServiceLimit:
			return l.T("reason.quota_service")
		case DetailNoQuota:
			return l.T("reason.quota_no_quota")
		}
		return l.T("reason.quota")
	case api.ReasonBehind:
		return l.T("reason.behind", r.Ahead)
	case api.ReasonNoSuchCapacity:
		if r.ReasonSpec == "" {
			return l.T("reason.no_such_capacity_any")
		}
		return l.T("reason.no_such_capacity", r.ReasonSpec)
	case api.ReasonInvalid:
		return l.T("reason.invalid")
	case api.ReasonReservationWindow:
		return l.T("reserve.reason_window")
	case api.ReasonNoSuitablePlace:
		return noSuitablePlaceText(l, r)
	}
	return string(r.Reason)
}

// FormErrorText is the text of a problem of the form, in the page's language.
func FormErrorText(l phrase.Locale, e FormError) string {
	switch e.Code {
	case FormErrInt:
		return l.T("form.err.int")
	case FormErrNumber:
		return l.T("form.err.number")
	case FormErrEnvLine:
		return l.T("form.err.env_line", e.Line)
	case FormErrLocationLine:
		return l.T("form.err.location_line", e.Line)
	case FormErrEnvDup:
		return l.T("form.err.env_dup", e.Line, e.Text)
	case FormErrEnvMissing:
		return l.T("form.err.env_missing", e.Text)
	case FormErrRuntimeOver:
		return l.T("form.err.runtime_over", LaneTitle(l, e.Text), l.Duration(e.Max), l.Duration(e.Asked))
	}
	return e.Text
}

// DescribedBy is the aria-describedby of input name: its help, if any, and its error slot.
func DescribedBy(name string, help bool) string {
	if help {
		return "help-" + name + " err-" + name
	}
	return "err-" + name
}

// noSuitablePlaceText says what the pools of the task's spec (or of every spec it may use)
// lack: a network between nodes, or enough of it or of storage reads for its minimums.
func noSuitablePlaceText(l phrase.Locale, r QueueRow) string {
	spec := r.ReasonSpec
	switch {
	case r.Detail == DetailNoInterconnect && spec == "":
		return l.T("reason.no_interconnect_any")
	case r.Detail == DetailNoInterconnect:
		return l.T("reason.no_interconnect", spec)
	case r.Detail == DetailInterNodeBelow && spec == "":
		return l.T("reason.inter_node_below_any", l.Int(r.MinInterNodeGbps))
	case r.Detail == DetailInterNodeBelow:
		return l.T("reason.inter_node_below", spec, l.Int(r.MinInterNodeGbps))
	case spec == "":
		return l.T("reason.storage_below_any", l.Int(r.MinStorageMBps))
	}
	return l.T("reason.storage_below", spec, l.Int(r.MinStorageMBps))
}
