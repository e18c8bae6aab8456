package views

import (
	"testing"

	"kashi/api"
	"kashi/phrase"
)

// TestNoSuitablePlaceText: the reason names what the pools lack, for one spec or for every
// spec the task may use, with the task's minimum, in both languages.
func TestNoSuitablePlaceText(t *testing.T) {
	en, zh := phrase.Locale{Lang: phrase.LangEN}, phrase.Locale{Lang: phrase.LangZH}
	row := func(spec, detail string) QueueRow {
		return QueueRow{Reason: api.ReasonNoSuitablePlace, ReasonSpec: spec, Detail: detail, MinInterNodeGbps: 1000, MinStorageMBps: 2500}
	}
	tests := []struct {
		l    phrase.Locale
		r    QueueRow
		want string
	}{
		{en, row("RTX4090-24G", DetailNoInterconnect), "Larger than a node, and the RTX4090-24G pools have no network between nodes (allow it to run without one, or pick a spec that has one)"},
		{en, row("", DetailNoInterconnect), "Larger than a node, and the pools it may use have no network between nodes (allow it to run without one, or pick a spec that has one)"},
		{en, row("A100-80G", DetailInterNodeBelow), "Between nodes, the A100-80G pools state less than the 1,000 Gb/s it asks (or nothing)"},
		{en, row("", DetailStorageBelow), "For storage reads, the pools it may use state less than the 2,500 MB/s it asks (or nothing)"},
		{zh, row("RTX4090-24G", DetailNoInterconnect), "任务大于一个节点，而 RTX4090-24G 资源池的节点间没有互联（可允许无互联运行，或改选有互联的卡型）"},
		{zh, row("", DetailInterNodeBelow), "它可用的资源池说明的节点间带宽都低于任务要求的 1,000 Gb/s（或未说明）"},
		{zh, row("A100-80G", DetailStorageBelow), "A100-80G 资源池说明的存储读吞吐低于任务要求的 2,500 MB/s（或未说明）"},
	}
	for _, tc := range tests {
		if got := ReasonText(tc.l, tc.r); got != tc.want {
			t.Errorf("ReasonText(%s, %s/%s on %q) = %q, want %q", tc.l.Lang, tc.r.Reason, tc.r.Detail, tc.r.ReasonSpec, got, tc.want)
		}
	}
}
