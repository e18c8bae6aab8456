package tasks

import (
	"time"

	"kashi/api"
	"kashi/phrase"
	"kashi/views"
)

// secondsOf is s seconds as a duration.
func secondsOf(s int64) time.Duration { return time.Duration(s) * time.Second }

// proposalText is the full run trial t proposes, in words: the spec and cards, its output
// per hour (projected or measured), its cost per million units, and its card-hours and cost
// for the full run's output when known.
func proposalText(l phrase.Locale, t api.Trial, p api.TrialProposal) string {
	unit := ""
	for _, r := range t.Runs {
		if r.OutputUnit != "" {
			unit = r.OutputUnit
			break
		}
	}
	s := l.T("trial.propose", p.GPUs, p.Spec, l.Int(int(p.UnitsPerHour)), unit)
	if !p.Scales {
		s = l.T("trial.propose_no_scale", p.GPUs, p.Spec, l.Int(int(p.UnitsPerHour)), unit)
	}
	if p.Projected {
		s += " " + l.T("trial.projected")
	}
	if p.CostPerMFen != nil {
		s += " " + l.T("trial.propose_cost", views.Yuan(*p.CostPerMFen), unit)
	}
	if p.CardS > 0 {
		s += " " + l.T("trial.propose_total", l.Int(int(t.WorkUnits)), unit, phrase.Hours(p.CardS), views.Yuan(p.CostFen))
	}
	return s
}
