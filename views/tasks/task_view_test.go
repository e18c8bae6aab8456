package tasks

import (
	"testing"
	"time"

	"kashi/phrase"
)

// TestTaskReasonText: the reasons the store records with a task's changes of state — its own
// sentences and the scaling loop's phrases — read in each language; other text as recorded.
func TestTaskReasonText(t *testing.T) {
	en, zh := phrase.Locale{Lang: phrase.LangEN}, phrase.Locale{Lang: phrase.LangZH}
	reclaim := phrase.Of(phrase.New("task_of", phrase.ID(7), phrase.S("alice")), phrase.New("idle_for", phrase.Dur(95*time.Minute))).Encode()
	tests := map[string]struct {
		l      phrase.Locale
		reason string
		want   string
	}{
		"known en":       {en, "process started", "its process started"},
		"known zh":       {zh, "process started", "进程已启动"},
		"with a name zh": {zh, "cancelled by alice", "由 alice 取消"},
		"exit code zh":   {zh, "exited 3", "退出码 3"},
		"placed zh":      {zh, "placed on [8 9]", "已分配卡"},
		"released zh":    {zh, "released by alice", "由 alice 释放卡"},
		"runtime en":     {en, "max runtime 2h0m0s reached", "max runtime 2h reached"},
		"node lost zh":   {zh, "node n1 lost: last seen 2026-03-02T09:00:00Z", "节点 n1 失联（最后在线 2026-03-02T09:00:00Z）"},
		"rerun":          {en, "requeued for attempt 2 of 3: node n1 lost: last seen 2026-03-02T09:00:00Z", "queued again for attempt 2 of 3; node n1 lost (last seen 2026-03-02T09:00:00Z)"},
		"rerun zh":       {zh, "requeued for attempt 2 of 2: exited 3", "重新排队，第 2 次尝试（共 2 次）；退出码 3"},
		"no attempt":     {en, "node n2 (rank 1) lost; no attempt left (2 of 2)", "node n2 (rank 1) lost; no attempt left (2 of 2)"},
		"no attempt zh":  {zh, "node n1 lost: last seen 2026-03-02T09:00:00Z; no attempt left (2 of 2)", "节点 n1 失联（最后在线 2026-03-02T09:00:00Z）；已无重跑机会（第 2 次，共 2 次）"},
		"rerun unknown":  {en, "requeued for attempt 2 of 2: the moon", "requeued for attempt 2 of 2: the moon"},
		"reclaim en":     {en, reclaim, "task 7 of alice; cards idle for 1h 35m"},
		"reclaim zh":     {zh, reclaim, "任务 7（提交人 alice）；卡已闲置 1小时35分"},
		"unknown":        {zh, "node n1 went away", "node n1 went away"},
		"runtime odd":    {zh, "max runtime forever reached", "max runtime forever reached"},
	}
	for name, tc := range tests {
		if got := TaskReasonText(tc.l, tc.reason); got != tc.want {
			t.Errorf("%s: TaskReasonText(%q) = %q, want %q", name, tc.reason, got, tc.want)
		}
	}
}
