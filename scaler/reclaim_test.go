package scaler

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDecideReclaim(t *testing.T) {
	idle := func(id int64, d time.Duration) IdleTask {
		return IdleTask{TaskID: id, Owner: "alice", IdleSince: ago(d)}
	}
	noticed := func(it IdleTask, d time.Duration) IdleTask { it.NoticeAt = ago(d); return it }
	started := func(it IdleTask, d time.Duration) IdleTask { it.StartedAt = ago(d); return it }
	kept := func(it IdleTask, d time.Duration) IdleTask { it.KeptUntil = st0.Add(d); return it }
	tests := map[string]struct {
		tasks []IdleTask
		pol   ReclaimPolicy
		want  []string
	}{
		"idle past the idle time gets a notice": {
			tasks: []IdleTask{idle(1, 31*time.Minute), idle(2, 29*time.Minute), {TaskID: 3}},
			want:  []string{"idle-notice 1 idle-task"},
		},
		"no answer within the grace: reclaimed": {
			tasks: []IdleTask{noticed(idle(1, time.Hour), 30*time.Minute), noticed(idle(2, time.Hour), 29*time.Minute)},
			want:  []string{"reclaim 1 no-answer"},
		},
		"busy again: the notice is withdrawn": {
			tasks: []IdleTask{noticed(IdleTask{TaskID: 1}, 10*time.Minute), noticed(idle(2, 5*time.Minute), 10*time.Minute)},
			want:  []string{"clear-notice 1 active-again", "clear-notice 2 active-again"},
		},
		"kept: nothing until the keep ends": {
			tasks: []IdleTask{kept(idle(1, 3*time.Hour), time.Minute), kept(noticed(idle(2, 3*time.Hour), time.Hour), time.Minute)},
			want:  nil,
		},
		"a keep that ended: a new notice": {
			tasks: []IdleTask{kept(idle(1, 3*time.Hour), -time.Minute)},
			want:  []string{"idle-notice 1 idle-task"},
		},
		"custom idle time and grace": {
			tasks: []IdleTask{idle(1, 11*time.Minute), noticed(idle(2, time.Hour), 6*time.Minute)},
			pol:   ReclaimPolicy{IdleTime: 10 * time.Minute, Grace: 5 * time.Minute},
			want:  []string{"idle-notice 1 idle-task", "reclaim 2 no-answer"},
		},
		"cards idle before the task came count from its start, after the setup grace": {
			tasks: []IdleTask{
				started(idle(1, 3*time.Hour), 5*time.Minute),  // fresh task on long-idle cards
				started(idle(2, 3*time.Hour), 44*time.Minute), // 29 min past its grace
				started(idle(3, 3*time.Hour), 46*time.Minute), // 31 min past its grace
				started(idle(4, 20*time.Minute), 2*time.Hour), // went idle after its grace
			},
			want: []string{"idle-notice 3 idle-task"},
		},
		"a custom setup grace": {
			tasks: []IdleTask{started(idle(1, 3*time.Hour), 35*time.Minute)},
			pol:   ReclaimPolicy{SetupGrace: time.Minute},
			want:  []string{"idle-notice 1 idle-task"},
		},
		"off: the pending notice is withdrawn, nothing else": {
			tasks: []IdleTask{noticed(idle(1, 3*time.Hour), 2*time.Hour), idle(2, 3*time.Hour)},
			pol:   ReclaimPolicy{Off: true},
			want:  []string{"clear-notice 1 reclaim-off"},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			for i := range tc.tasks {
				tc.tasks[i].Policy = tc.pol
			}
			got := summary(Plan{Actions: DecideReclaim(tc.tasks, st0)})
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("DecideReclaim(...) (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecideReclaimDetails(t *testing.T) {
	got := DecideReclaim([]IdleTask{{TaskID: 7, Owner: "bob", IdleSince: ago(42 * time.Minute)}}, st0)
	want := "task 7 of bob; cards idle for 42m ≥ 30m; stopped at 14:30 UTC unless kept"
	if len(got) != 1 || english.Say(got[0].Detail) != want {
		t.Errorf("DecideReclaim(...) = %+v, want one notice %q", got, want)
	}
	// The notice's times are in the zone pages show, named.
	shanghai, err := time.LoadLocation("Asia/Shanghai")
	if err != nil {
		t.Fatal(err)
	}
	got = DecideReclaim([]IdleTask{{TaskID: 7, Owner: "bob", IdleSince: ago(42 * time.Minute), Policy: ReclaimPolicy{Location: shanghai}}}, st0)
	if want := "task 7 of bob; cards idle for 42m ≥ 30m; stopped at 22:30 Asia/Shanghai unless kept"; len(got) != 1 || english.Say(got[0].Detail) != want {
		t.Errorf("DecideReclaim(... in Shanghai) = %+v, want one notice %q", got, want)
	}
	// DecideScale carries the reclaim actions after the pools'.
	plan := DecideScale(Snapshot{Tasks: []IdleTask{{TaskID: 7, IdleSince: ago(time.Hour)}}}, st0)
	if len(plan.Actions) != 1 || plan.Actions[0].Kind != ActionIdleNotice {
		t.Errorf("DecideScale(...).Actions = %v, want the notice", plan.Actions)
	}
}

// TestDecideReclaimEachTasksPolicy: each task is judged under its own policy.
func TestDecideReclaimEachTasksPolicy(t *testing.T) {
	tasks := []IdleTask{
		{TaskID: 1, IdleSince: ago(11 * time.Minute), Policy: ReclaimPolicy{IdleTime: 10 * time.Minute}},
		{TaskID: 2, IdleSince: ago(11 * time.Minute)},
		{TaskID: 3, IdleSince: ago(3 * time.Hour), NoticeAt: ago(time.Hour), Policy: ReclaimPolicy{Grace: 2 * time.Hour}},
		{TaskID: 4, IdleSince: ago(3 * time.Hour), NoticeAt: ago(time.Hour)},
		{TaskID: 5, IdleSince: ago(3 * time.Hour), Policy: ReclaimPolicy{Off: true}},
	}
	want := []string{"idle-notice 1 idle-task", "reclaim 4 no-answer"}
	if diff := cmp.Diff(want, summary(Plan{Actions: DecideReclaim(tasks, st0)})); diff != "" {
		t.Errorf("DecideReclaim(...) (-want +got):\n%s", diff)
	}
}
