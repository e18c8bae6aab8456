package tasks_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"kashi/api"
	"kashi/web/webtest"
)

// TestRunAsFailureReasons: a task that its node could not run as its owner, or that its
// cgroup stopped for using more host memory than its limit, ends failed with that reason in
// words, in both languages, on its page and in the API (with its codes); on both databases.
func TestRunAsFailureReasons(t *testing.T) {
	tests := map[string]struct {
		report string
		en, zh string
		code   string
	}{
		"no account on the node": {`{"state":"failed-to-start","cause":"no-account","account":"alice","message":"user: unknown user alice"}`,
			"failed to start: its node has no Unix account alice", "启动失败：节点上没有 Unix 账号 alice", "no_account"},
		"no account set": {`{"state":"failed-to-start","cause":"no-account"}`,
			"failed to start: its owner has no Unix account (an admin sets one on the people page)", "启动失败：所有者没有 Unix 账号（管理员可在用户页面设置）", "no_account_set"},
		"root refused": {`{"state":"failed-to-start","cause":"root-refused","account":"toor"}`,
			"failed to start: it would run as root, which its pool does not allow", "启动失败：任务将以 root 运行，而资源池不允许", "root_refused"},
		"memory limit": {`{"state":"exited","exit_code":137,"cause":"memory-limit","memory_limit_mib":4096}`,
			"stopped: used more host memory than its limit of 4,096 MiB", "已停止：使用的主机内存超过其上限 4,096 MiB", "memory_limit"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			webtest.ForEachDB(t, func(t *testing.T, s *webtest.Server) {
				s.Projects("vision")
				member := s.Member("alice", "vision")
				n := s.Register(webtest.Node("n1").Cards(webtest.A100Name, webtest.A100MiB, 1))
				tk := s.Create(webtest.Task("train").Ready(), webtest.T0.Add(-time.Hour))
				s.Place(tk, webtest.T0.Add(-50*time.Minute), n.UUIDs[0])
				s.Report(n, tk.ID, tc.report)
				id := strconv.FormatInt(tk.ID, 10)
				for lang, want := range map[string]string{"en": tc.en, "zh-CN": tc.zh} {
					hdr := append(webtest.Bearer(member), "Cookie", "kashi_lang="+lang)
					doc := webtest.Parse(t, s.Get("/tasks/"+id, hdr...).Body.String())
					if got := doc.Find(`[data-testid=task-event][data-to=failed] .why`).Text(); got != want {
						t.Errorf("%s: the page's reason = %q, want %q", lang, got, want)
					}
					w := s.Get("/api/v1/tasks/"+id, hdr...)
					got := webtest.Decode[api.Task](t, w)
					if w.Code != http.StatusOK || got.State != "failed" || got.Reason != want || len(got.ReasonCodes) != 1 || got.ReasonCodes[0].Code != tc.code {
						t.Errorf("%s: GET /api/v1/tasks/%s = %d %s %q %+v, want failed, %q, code %s", lang, id, w.Code, got.State, got.Reason, got.ReasonCodes, want, tc.code)
					}
				}
			})
		})
	}
}

// TestRunAsCauseChecked: a status report's cause, account and memory limit are checked, 422
// naming the field.
func TestRunAsCauseChecked(t *testing.T) {
	s := webtest.NewServer(t)
	s.Projects("vision")
	n := s.Register(webtest.Node("n1").Cards(webtest.A100Name, webtest.A100MiB, 1))
	tk := s.Create(webtest.Task("train").Ready(), webtest.T0.Add(-time.Hour))
	s.Place(tk, webtest.T0.Add(-50*time.Minute), n.UUIDs[0])
	for field, body := range map[string]string{
		"cause":            `{"state":"exited","exit_code":1,"cause":"gremlins"}`,
		"account":          `{"state":"failed-to-start","cause":"no-account","account":"../etc"}`,
		"memory_limit_mib": `{"state":"exited","exit_code":137,"cause":"memory-limit","memory_limit_mib":0}`,
	} {
		w := s.Post(api.PathTaskStatus+strconv.FormatInt(tk.ID, 10)+"/status", body, webtest.Bearer(n.Token)...)
		if e := webtest.Decode[api.Error](t, w); w.Code != http.StatusUnprocessableEntity || e.Field != field || !strings.Contains(e.Error, "must") {
			t.Errorf("report %s = %d %+v, want 422 naming %s", body, w.Code, e, field)
		}
	}
}
