package tasks

import (
	"testing"
	"time"

	"kashi/phrase"
)

func TestEventReasonText(t *testing.T) {
	tests := map[string]struct {
		l      phrase.Locale
		reason string
		want   string
	}{
		"known viewstest.En":       {phrase.Locale{Lang: phrase.LangEN}, "process started", "its process started"},
		"known viewstest.Zh":       {phrase.Locale{Lang: phrase.LangZH}, "process started", "进程已启动"},
		"with a name viewstest.Zh": {phrase.Locale{Lang: phrase.LangZH}, "cancelled by alice", "由 alice 取消"},
		"exit code viewstest.Zh":   {phrase.Locale{Lang: phrase.LangZH}, "exited 3", "退出码 3"},
		"placed viewstest.Zh":      {phrase.Locale{Lang: phrase.LangZH}, "placed on [8 9]", "已分配卡"},
		"unknown":                  {phrase.Locale{Lang: phrase.LangZH}, "node n1 lost", "node n1 lost"},
	}
	for name, tc := range tests {
		if got := eventReasonText(tc.l, tc.reason); got != tc.want {
			t.Errorf("%s: eventReasonText(%q) = %q, want %q", name, tc.reason, got, tc.want)
		}
	}
}

func TestSparkPoints(t *testing.T) {
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	c := TaskCardView{StartedAt: t0, EndedAt: t0.Add(time.Hour), MemTotalMiB: 100,
		Points: []ChartPoint{{At: t0, UtilPct: 0}, {At: t0.Add(30 * time.Minute), UtilPct: 50}, {At: t0.Add(2 * time.Hour), UtilPct: 100}}}
	got := sparkPoints(c, t0, func(p ChartPoint) float64 { return float64(p.UtilPct) / 100 })
	if want := "0,59 150,30 300,1"; got != want {
		t.Errorf("sparkPoints = %q, want %q", got, want)
	}
}
