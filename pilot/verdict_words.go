package pilot

import (
	"fmt"
	"strings"
	"time"

	"kashi/phrase"
)

// Sentence says v in l, about the pool named pool: "Peaks absorbed: yes, 3 of 4". The
// review's page and its message to the leads both say it through here.
func (v Verdict) Sentence(l phrase.Locale, pool string) string {
	switch v.Question {
	case QPeaks:
		switch {
		case v.Of == 0:
			return l.T("review.v.peaks_none")
		case v.OK:
			return l.T("review.v.peaks_yes", v.N, v.Of)
		}
		return l.T("review.v.peaks_no", v.N, v.Of)
	case QTroughs:
		if v.OK {
			return l.T("review.v.troughs_yes")
		}
		return l.T("review.v.troughs_no", pool, v.N, l.Duration(time.Duration(v.Hours*float64(time.Hour)).Round(time.Minute)))
	case QIdle:
		pct := fmt.Sprintf("%.1f %%", v.Pct)
		if v.OK {
			return l.T("review.v.idle_yes", pct, v.N)
		}
		return l.T("review.v.idle_no", pct, v.N)
	default:
		if v.OK {
			return l.T("review.v.cost_yes", phrase.Yuan(v.Fen))
		}
		return l.T("review.v.cost_no", phrase.Yuan(-v.Fen))
	}
}

// Message is r's verdicts as a message to the leads, in l, its days in loc: a title naming
// the pool, the period (and the project, when narrowed), one line per verdict, and link,
// the review's page.
func (r Review) Message(l phrase.Locale, loc *time.Location, link string) (title, text string) {
	who := r.Pool
	if r.Project != "" {
		who = l.T("review.msg.pool_project", r.Pool, r.Project)
	}
	days := phrase.DayRange(r.From.In(loc), r.To.In(loc))
	title = l.T("review.msg.title", who, days)
	lines := []string{l.T("review.msg.head", who, days)}
	for _, v := range r.Verdicts {
		lines = append(lines, "- "+v.Sentence(l, r.Pool))
	}
	lines = append(lines, "", l.T("review.msg.link", link))
	return title, strings.Join(lines, "\n")
}
