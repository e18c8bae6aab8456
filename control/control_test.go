package control

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kashi/phrase"
	"kashi/scaler"
)

// TestIdleEventOf: an idle notice's event carries the loop's reason as catalog codes, without
// the task it names first (the message names the task itself), so that the notice is worded
// in the installation's language: in zh-CN, Chinese, not the English it was made in before.
func TestIdleEventOf(t *testing.T) {
	now := time.Date(2026, 3, 2, 14, 0, 0, 0, time.UTC)
	acts := scaler.DecideReclaim([]scaler.IdleTask{{TaskID: 7, Owner: "bob", IdleSince: now.Add(-42 * time.Minute)}}, now)
	if len(acts) != 1 {
		t.Fatalf("DecideReclaim = %v, want one notice", acts)
	}
	ev, ok := idleEventOf(acts[0])
	if !ok || ev.TaskID != 7 || ev.Reclaimed {
		t.Fatalf("idleEventOf(notice) = %+v, %v; want task 7's notice", ev, ok)
	}
	var codes []string
	for _, p := range ev.Detail {
		codes = append(codes, p.Code)
	}
	if diff := cmp.Diff([]string{"cards_idle", "stop_at"}, codes); diff != "" {
		t.Errorf("idleEventOf(notice).Detail codes (-want +got):\n%s", diff)
	}
	for lang, want := range map[string]string{
		phrase.LangZH: "卡已闲置 42分钟 ≥ 30分钟；除非保留，将于 14:30 UTC 停止",
		phrase.LangEN: "cards idle for 42m ≥ 30m; stopped at 14:30 UTC unless kept",
	} {
		if got := (phrase.Locale{Lang: lang}).Say(ev.Detail); got != want {
			t.Errorf("%s: the notice's detail = %q, want %q", lang, got, want)
		}
	}
}
