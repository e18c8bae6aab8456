// The tasks API's fixture: a fleet of two specs, hand-written submissions and the GPU list.

package webtest

import (
	"context"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"kashi/api"
	"kashi/models"
	"kashi/phrase"
)

// TaskFleet registers n1 and n2 (4 A100 each, pool a100) and h1 (2 H800, pool h800), and the
// project vision.
func TaskFleet(s *Server) map[string]Registered {
	s.Tb.Helper()
	nodes := map[string]Registered{
		"n1": s.Register(Node("n1").InPool("a100").Cards(A100Name, A100MiB, 4)),
		"n2": s.Register(Node("n2").InPool("a100").Cards(A100Name, A100MiB, 4)),
		"h1": s.Register(Node("h1").InPool("h800").Cards(H800Name, H800MiB, 2)),
	}
	s.Projects("vision")
	return nodes
}

// TaskBody writes a task submission by hand (so that it may hold what Go's encoder would not):
// a valid one, with raw JSON values replacing fields of it; an empty value drops the field.
func TaskBody(raw map[string]string) string {
	fields := map[string]string{"project": `"vision"`, "name": `"resnet50"`, "owner": `"alice"`, "gpus": `1`,
		"command": `["python","train.py"]`, "data_ready": `true`}
	for k, v := range raw {
		fields[k] = v
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteByte('{')
	for _, k := range keys {
		if fields[k] == "" {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + k + `":` + fields[k])
	}
	b.WriteByte('}')
	return b.String()
}

// Sorted is a sorted copy of s.
func Sorted(s []string) []string { s = slices.Clone(s); sort.Strings(s); return s }

// IDStr writes an id in base 10, as ids appear in paths and forms.
func IDStr(id int64) string { return strconv.FormatInt(id, 10) }

// GPUJSON is one entry of GET /api/v1/gpus.
type GPUJSON struct {
	UUID    string  `json:"uuid"`
	State   string  `json:"state"`
	TaskID  *int64  `json:"task_id"` // the task holding the card, if any
	Project *string `json:"project"` // that task's project, if any
	// UnmanagedMiB and UnmanagedWho describe use by processes of no task.
	UnmanagedMiB int64  `json:"unmanaged_mib"`
	UnmanagedWho string `json:"unmanaged_who"`
}

// GPUByUUID is the entry of uuid in GET /api/v1/gpus, failing the test if there is none.
func GPUByUUID(t *testing.T, s *Server, uuid string) GPUJSON {
	t.Helper()
	for _, g := range Decode[[]GPUJSON](t, s.Get("/api/v1/gpus")) {
		if g.UUID == uuid {
			return g
		}
	}
	t.Fatalf("GET /api/v1/gpus has no %s", uuid)
	return GPUJSON{}
}

// ReclaimedTask runs alice's task "idler" on card 0 of node n1 of TaskFleet from T0-3h until
// idle reclaim stops it at T0-1m, as the scaling loop does (its reason stored as phrases:
// whose task, idle 2h, no answer to the notice), and its node reports the exit. It returns the
// task.
func ReclaimedTask(s *Server, nodes map[string]Registered) models.Task {
	s.Tb.Helper()
	t := s.Create(Task("idler").Ready(), T0.Add(-3*time.Hour))
	s.Place(t, T0.Add(-3*time.Hour), UUIDOf("n1", 0))
	status := api.PathTaskStatus + IDStr(t.ID) + "/status"
	if w := s.Post(status, `{"state":"running"}`, Bearer(nodes["n1"].Token)...); w.Code != http.StatusNoContent {
		s.Tb.Fatalf("POST %s running = %d %s", status, w.Code, w.Body)
	}
	reason := phrase.Of(phrase.New("task_of", phrase.ID(t.ID), phrase.S("alice")), phrase.New("idle_for", phrase.Dur(2*time.Hour)),
		phrase.New("no_answer", phrase.S("08:29"), phrase.Dur(30*time.Minute))).Encode()
	if err := s.Store.ReclaimTask(context.Background(), t.ID, reason, T0.Add(-time.Minute)); err != nil {
		s.Tb.Fatalf("ReclaimTask: %v", err)
	}
	if w := s.Post(status, `{"state":"exited","exit_code":143}`, Bearer(nodes["n1"].Token)...); w.Code != http.StatusNoContent {
		s.Tb.Fatalf("POST %s exited = %d %s", status, w.Code, w.Body)
	}
	return t
}
