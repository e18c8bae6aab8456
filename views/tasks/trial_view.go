package tasks

import (
	"strconv"
	"strings"
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
	unit := outputUnit(t)
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

// outputUnit is the unit trial t's runs report their output in ("" before any did).
func outputUnit(t api.Trial) string {
	for _, r := range t.Runs {
		if r.OutputUnit != "" {
			return r.OutputUnit
		}
	}
	return ""
}

// triedText is what trial t tries: its specs × its sizes in cards.
func triedText(l phrase.Locale, t api.Trial) string {
	sizes := make([]string, len(t.Sizes))
	for i, n := range t.Sizes {
		sizes[i] = strconv.Itoa(n)
	}
	return l.T("trials.tried", strings.Join(t.Specs, ", "), strings.Join(sizes, ", "))
}

// trialState is trial t's state in words, and its badge's class: its full run submitted,
// done (every run ended), or running with how many of its runs have ended.
func trialState(l phrase.Locale, t api.Trial) (text, class string) {
	switch {
	case t.FullTaskID != nil:
		return l.T("trials.state_full"), "badge st st-succeeded"
	case t.Done:
		return l.T("trials.state_done"), "badge st st-succeeded"
	}
	ended := 0
	for _, r := range t.Runs {
		if r.State.Ended() {
			ended++
		}
	}
	return l.T("trials.state_running", ended, len(t.Runs)), "badge st st-running"
}

// proposalLine is the full run trial t proposes in one line: cards × spec, output per hour
// and cost per million units where priced.
func proposalLine(l phrase.Locale, t api.Trial, p api.TrialProposal) string {
	s := l.T("trials.proposal_line", p.GPUs, p.Spec, l.Int(int(p.UnitsPerHour)), outputUnit(t))
	if p.CostPerMFen != nil {
		s += " · " + l.T("trials.per_m", views.Yuan(*p.CostPerMFen))
	}
	return s
}
