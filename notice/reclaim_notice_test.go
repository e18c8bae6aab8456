package notice_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
	"kashi/notice"
	"kashi/notify"
	"kashi/phrase"
)

// runningTask stores a node and a task of owner running on its first GPU.
func runningTask(t *testing.T, s *models.Store, owner string, now time.Time) models.Task {
	t.Helper()
	node := modelstest.Node("a100-01").Pool("a100").A100s(1).Register(t, s, now)
	task := modelstest.Task("vision", "train").Owner(owner).Create(t, s, now)
	modelstest.Run(t, s, task, node, now)
	return task
}

// idleDetail is the scaling loop's reason of an idle notice (scaler.DecideReclaim's, less the
// task it names first).
var idleDetail = phrase.Of(phrase.New("cards_idle", phrase.Dur(31*time.Minute), phrase.Dur(30*time.Minute)),
	phrase.New("stop_at", phrase.S("09:30 UTC")))

// idleWorld is project vision with alice (a member) running a task, lena its lead, carol a
// member, and nils, the lead of nlp.
type idleWorld struct {
	s                        *models.Store
	task                     models.Task
	alice, lena, carol, nils models.User
}

func newIdleWorld(t *testing.T, owner string, now time.Time) idleWorld {
	t.Helper()
	ctx := context.Background()
	w := idleWorld{s: modelstest.SQLite(t, models.Options{})}
	w.task = runningTask(t, w.s, owner, now)
	vision, _ := w.s.ProjectByName(ctx, "vision")
	nlp, _ := w.s.EnsureProject(ctx, "nlp", now)
	for _, u := range []struct {
		to      *models.User
		name    string
		project int64
		role    string
	}{{&w.alice, "alice", vision.ID, models.ProjectRoleMember}, {&w.lena, "lena", vision.ID, models.ProjectRoleLead},
		{&w.carol, "carol", vision.ID, models.ProjectRoleMember}, {&w.nils, "nils", nlp.ID, models.ProjectRoleLead}} {
		var err error
		if *u.to, err = w.s.CreateUser(ctx, u.name, "pw-"+u.name, models.RoleUser, now); err != nil {
			t.Fatal(err)
		}
		if err := w.s.SetMember(ctx, u.project, u.to.ID, u.role); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.s.SetReclaimNotice(ctx, w.task.ID, now); err != nil {
		t.Fatal(err)
	}
	return w
}

// reclaimNotes are u's notifications of idle reclaim (a task's start tells its owner too).
func (w idleWorld) reclaimNotes(t *testing.T, u models.User) []models.Notification {
	t.Helper()
	all, err := w.s.Notifications(context.Background(), u.ID, 10)
	if err != nil {
		t.Fatal(err)
	}
	var out []models.Notification
	for _, n := range all {
		if n.Kind == notice.KindIdleNotice || n.Kind == notice.KindReclaimed {
			out = append(out, n)
		}
	}
	return out
}

// TestIdleTask: an idle notice goes to the task's owner and to its project's lead, once each
// however often it is sent, and to the channels once; a member who is neither, and the lead
// of another project, hear nothing. A reclaim tells them once more.
func TestIdleTask(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	w := newIdleWorld(t, "alice", now)
	a := notice.IdleEvent{TaskID: w.task.ID, Detail: idleDetail}
	ch := &recorder{}
	for range 2 { // the second call finds the notice sent and tells nobody again
		if err := notice.IdleTask(ctx, w.s, []notify.Channel{ch}, english, a, time.UTC, now.Add(time.Second)); err != nil {
			t.Fatalf("IdleTask = %v", err)
		}
	}
	for _, u := range []models.User{w.alice, w.lena} {
		notes := w.reclaimNotes(t, u)
		if len(notes) != 1 || notes[0].Kind != notice.KindIdleNotice {
			t.Fatalf("%s's notifications = %+v, want one idle notice", u.Name, notes)
		}
		if !strings.Contains(notes[0].Message, "cards idle for 31m ≥ 30m") || !strings.Contains(notes[0].Message, "#1 train (project vision, 1 GPU)") {
			t.Errorf("%s's notice = %q, want the task and the numbers", u.Name, notes[0].Message)
		}
	}
	for _, u := range []models.User{w.carol, w.nils} {
		if notes := w.reclaimNotes(t, u); len(notes) != 0 {
			t.Errorf("%s, neither owner nor lead, was told: %+v", u.Name, notes)
		}
	}
	if len(ch.got) != 1 || ch.got[0].Project != "vision" || ch.got[0].Kind != notice.KindIdleNotice {
		t.Errorf("channel got %+v, want one idle notice for vision", ch.got)
	}
	if want := []notify.Mention{{Name: "alice"}}; !reflect.DeepEqual(ch.got[0].Mentions, want) {
		t.Errorf("the notice mentions %+v, want alice, who has no chat ids yet", ch.got[0].Mentions)
	}
	ids := models.ChatIDs{DingTalk: "13800000000", Feishu: "ou_alice", WeCom: "alice.w"}
	if err := w.s.SetChatIDs(ctx, "alice", "alice", ids, now); err != nil {
		t.Fatal(err)
	}

	rc := notice.IdleEvent{TaskID: w.task.ID, Reclaimed: true, Detail: phrase.Of(phrase.New("idle_for", phrase.Dur(time.Hour)))}
	if err := notice.IdleTask(ctx, w.s, []notify.Channel{ch}, english, rc, time.UTC, now.Add(31*time.Minute)); err != nil {
		t.Fatal(err)
	}
	for _, u := range []models.User{w.alice, w.lena} {
		if notes := w.reclaimNotes(t, u); len(notes) != 2 || notes[0].Kind != notice.KindReclaimed {
			t.Errorf("after the reclaim %s has %+v, want the reclaim newest of 2", u.Name, notes)
		}
	}
	if len(ch.got) != 2 {
		t.Fatalf("after the reclaim the channel got %d messages, want 2", len(ch.got))
	}
	if want := []notify.Mention{notice.Mention("alice", ids)}; !reflect.DeepEqual(ch.got[1].Mentions, want) {
		t.Errorf("the reclaim mentions %+v, want alice by her chat ids %+v", ch.got[1].Mentions, want)
	}
}

// TestIdleTaskOwnerLeads: a lead's own idle task tells her once.
func TestIdleTaskOwnerLeads(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	w := newIdleWorld(t, "lena", now)
	a := notice.IdleEvent{TaskID: w.task.ID, Detail: idleDetail}
	if err := notice.IdleTask(ctx, w.s, nil, english, a, time.UTC, now); err != nil {
		t.Fatal(err)
	}
	if notes := w.reclaimNotes(t, w.lena); len(notes) != 1 {
		t.Errorf("lena, owner and lead, has %d idle notices, want 1", len(notes))
	}
}

// TestIdleTaskInChinese: with the installation in zh-CN the idle and reclaim notices, in-app
// and on the channels, are Chinese: no English sentence of the loop or of the message.
func TestIdleTaskInChinese(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	w := newIdleWorld(t, "alice", now)
	zh := phrase.Locale{Lang: phrase.LangZH}
	ch := &recorder{}
	for _, a := range []notice.IdleEvent{{TaskID: w.task.ID, Detail: idleDetail},
		{TaskID: w.task.ID, Reclaimed: true, Detail: phrase.Of(phrase.New("idle_for", phrase.Dur(time.Hour)))}} {
		if err := notice.IdleTask(ctx, w.s, []notify.Channel{ch}, zh, a, time.UTC, now); err != nil {
			t.Fatal(err)
		}
	}
	notes := w.reclaimNotes(t, w.lena)
	if len(notes) != 2 || len(ch.got) != 2 {
		t.Fatalf("lena has %d notices and the channel %d, want 2 and 2", len(notes), len(ch.got))
	}
	want := []string{
		"任务 #1 train（项目 vision，1 张 GPU）（提交人 alice）已被停止，卡已回收：卡已闲置 1小时。",
		"任务 #1 train（项目 vision，1 张 GPU）（提交人 alice）：卡已闲置 31分钟 ≥ 30分钟；除非保留，将于 09:30 UTC 停止。" +
			"提交人或项目负责人可在通知页保留这些卡或立即释放。",
	}
	for i, n := range notes {
		if n.Message != want[i] {
			t.Errorf("in-app notice %d = %q, want %q", i, n.Message, want[i])
		}
	}
	for i, m := range ch.got {
		for _, english := range []string{"Idle", "Reclaimed", "Task", "owned by", "cards idle", "unless kept", "GPUs)"} {
			if strings.Contains(m.Title+m.Text, english) {
				t.Errorf("channel message %d %q / %q has English %q", i, m.Title, m.Text, english)
			}
		}
	}
}

func TestIdleTaskOwnerWithoutAccount(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	s := modelstest.SQLite(t, models.Options{})
	task := runningTask(t, s, "ci-bot", now)
	s.SetReclaimNotice(ctx, task.ID, now)
	ch, bad := &recorder{}, &failing{}
	a := notice.IdleEvent{TaskID: task.ID, Detail: idleDetail}
	err := notice.IdleTask(ctx, s, []notify.Channel{ch, bad}, english, a, time.UTC, now)
	if err == nil || !strings.Contains(err.Error(), "robot down") {
		t.Errorf("IdleTask with a failing channel = %v, want its error", err)
	}
	if len(ch.got) != 1 {
		t.Errorf("channel got %d messages, want 1 for an owner without an account", len(ch.got))
	}
}

// TestReclaimToldOnce: when the scaling loop reclaims an idle task, its owner and its lead are
// each told once — the reclaim's notice, with why — and the task's end in state reclaimed,
// when its node reports the exit, tells the owner nothing more. Each reclaim sent two
// notifications: the notice and the owner's "task reclaimed" under another key.
func TestReclaimToldOnce(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	w := newIdleWorld(t, "alice", now)
	nodes, err := w.s.NodeNames(ctx)
	if err != nil || len(nodes) != 1 {
		t.Fatalf("nodes = %v, %v", nodes, err)
	}
	var node int64
	for id := range nodes {
		node = id
	}
	at := now.Add(31 * time.Minute)
	if err := w.s.ReclaimTask(ctx, w.task.ID, "idle", at); err != nil { // what the loop applies
		t.Fatal(err)
	}
	rc := notice.IdleEvent{TaskID: w.task.ID, Reclaimed: true, Detail: phrase.Of(phrase.New("idle_for", phrase.Dur(time.Hour)))}
	if err := notice.IdleTask(ctx, w.s, nil, english, rc, time.UTC, at); err != nil {
		t.Fatal(err)
	}
	if err := w.s.ReportTaskStatus(ctx, node, w.task.ID, models.TaskReport{State: models.ReportExited, ExitCode: 143, TS: at.Add(time.Minute)}, at.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if row, _ := w.s.TaskByID(ctx, w.task.ID); row.State != models.TaskReclaimed {
		t.Fatalf("task is %s, want reclaimed", row.State)
	}
	for _, u := range []models.User{w.alice, w.lena} {
		all, err := w.s.Notifications(ctx, u.ID, 10)
		if err != nil {
			t.Fatal(err)
		}
		var ends []string
		for _, n := range all {
			if n.Kind != models.NoteTaskStarted {
				ends = append(ends, n.Kind+" "+n.Key)
			}
		}
		want := notice.KindReclaimed + " " + models.TaskNoteKey(w.task.ID, models.TaskReclaimed)
		if len(ends) != 1 || ends[0] != want {
			t.Errorf("%s was told %q of the reclaim, want once: %q", u.Name, ends, want)
		}
	}
}
