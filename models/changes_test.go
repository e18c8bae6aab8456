package models_test

import (
	"context"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// A submit, a token's use, a session's use and a task's log lines leave the board's snapshot
// as it is (none of them changes a GPU, a node or a holder), so a script submitting many
// tasks a second or agents reporting every second do not make every board request read the
// fleet again; a placement does.
func TestWritesThatLeaveTheBoardAlone(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		node := modelstest.Node("c1").Pool("a100").A100s(1).Register(t, s, t0)
		u, err := s.CreateUser(ctx, "ana", "a-long-password", models.RoleUser, t0)
		if err != nil {
			t.Fatal(err)
		}
		api, _, err := s.CreateAPIToken(ctx, u.ID, "ci", models.ScopeWrite, t0)
		if err != nil {
			t.Fatal(err)
		}
		lim := models.SessionLimits{Idle: time.Hour, Absolute: 24 * time.Hour}
		sess, err := s.CreateSession(ctx, u.ID, lim, t0)
		if err != nil {
			t.Fatal(err)
		}
		task := modelstest.Task("vision", "first").Create(t, s, t0)

		before := models.BoardGen(s)
		for i, at := range []time.Time{t0.Add(2 * time.Minute), t0.Add(2*time.Minute + time.Second)} {
			if _, _, err := s.TokenUser(ctx, api, at); err != nil {
				t.Fatalf("TokenUser #%d: %v", i, err)
			}
			if _, err := s.SessionUser(ctx, sess, lim, at); err != nil {
				t.Fatalf("SessionUser #%d: %v", i, err)
			}
		}
		modelstest.Task("vision", "second").Create(t, s, t0)
		if err := s.AppendTaskLogs(ctx, node.ID, nil, t0); err != nil {
			t.Fatal(err)
		}
		if err := s.AppendTaskLogs(ctx, node.ID, []models.LogPiece{{TaskID: task.ID, Text: "epoch 1\n"}}, t0); err != nil {
			t.Fatal(err)
		}
		if after := models.BoardGen(s); after != before {
			t.Errorf("board changes counted %d → %d after submits, uses of a token and a session, and log lines, want none", before, after)
		}
		if err := s.PlaceTask(ctx, task.ID, []int64{node.GPUs[0].ID}, false, "placed", t0); err != nil {
			t.Fatal(err)
		}
		if models.BoardGen(s) == before {
			t.Error("a placement was not counted as a board change")
		}
	})
}
