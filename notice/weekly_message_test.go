package notice

import (
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/google/go-cmp/cmp"

	"kashi/billing"
	"kashi/models"
	"kashi/phrase"
)

// TestWeeklyMessages: one message per project that held cards in the week, naming the
// project and its held, effective and idle card-hours, what reruns lost and cost, its most
// idle tasks and its estimate misses, with the link; in English and in Chinese.
func TestWeeklyMessages(t *testing.T) {
	loc, _ := time.LoadLocation("Asia/Shanghai")
	from := time.Date(2026, 3, 2, 0, 0, 0, 0, loc)
	r := billing.Report{Week: "2026-W10", From: from.UTC(), To: from.AddDate(0, 0, 7).UTC(),
		Projects: []billing.Usage{
			{Key: "vision", NominalS: 36000, EffectiveS: 18000, Breakdown: billing.Breakdown{Idle: 9000}},
			{Key: "nlp"}, // held nothing: no message
		},
		TopIdle: []billing.IdleTask{{TaskID: 7, Task: "sft-r1", Project: "vision", Owner: "li", Breakdown: billing.Breakdown{Idle: 9000}}},
		Misses:  []billing.EstimateMiss{{TaskID: 8, Task: "eval", Project: "vision", Owner: "wang", EstimatedS: 3600, ActualS: 10800}},
		Reruns:  []billing.GroupUsage{{Project: "vision", Runs: 1, NominalS: 5400, CostFen: 2250}},
	}
	ps := []models.Project{{ID: 3, Name: "vision"}, {ID: 4, Name: "nlp"}}
	link := "https://kashi.example/reports?week=2026-W10"
	want := map[string]string{
		phrase.LangEN: "Project vision, week 2026-W10 (2026-03-02 – 2026-03-08): 10.00 card-hours held, 5.00 effective (50%), 2.50 idle.\n\n" +
			"Reruns: 1 task lost 1.50 card-hours since their last checkpoints, costing ¥22.50.\n\n" +
			"Tasks that left cards idle most:\n- #7 sft-r1 (li): 2.50 idle card-hours\n\n" +
			"Estimates that missed most:\n- #8 eval (wang): estimated 1.00, used 3.00 card-hours\n\n" +
			"The whole report: " + link,
		phrase.LangZH: "项目 vision，2026-W10 周（2026-03-02 – 2026-03-08）：占用 10.00 卡时，有效 5.00（50%），闲置 2.50。\n\n" +
			"重跑：1 个任务自最后检查点起损失 1.50 卡时，费用 ¥22.50。\n\n" +
			"闲置卡最多的任务：\n- #7 sft-r1（li）：闲置 2.50 卡时\n\n" +
			"估算偏差最大的任务：\n- #8 eval（wang）：预估 1.00，实际 3.00 卡时\n\n" +
			"完整周报：" + link,
	}
	for lang, text := range want {
		t.Run(lang, func(t *testing.T) {
			msgs := weeklyMessages(phrase.Locale{Lang: lang}, r, ps, loc, link, nil)
			if len(msgs) != 1 || msgs[0].ProjectID != 3 || msgs[0].Project != "vision" {
				t.Fatalf("weeklyMessages = %+v, want vision's only", msgs)
			}
			if d := cmp.Diff(text, msgs[0].Text); d != "" {
				t.Errorf("text (-want +got):\n%s", d)
			}
			if msgs[0].Link != link || msgs[0].LinkText == "" {
				t.Errorf("link = %q (%q), want %q with words", msgs[0].Link, msgs[0].LinkText, link)
			}
			han := strings.ContainsFunc(msgs[0].Title, func(r rune) bool { return unicode.Is(unicode.Han, r) })
			if han != (lang == phrase.LangZH) {
				t.Errorf("title %q in %s", msgs[0].Title, lang)
			}
		})
	}
}
