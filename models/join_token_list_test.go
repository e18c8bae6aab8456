package models_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestJoinTokenList: the admins' page lists the single-use join tokens neither used nor
// revoked, newest first, with the node each is bound to by hostname; a revoked token lists
// no more and registers nothing; a token used or revoked cannot be revoked again (409), an
// unknown one is 404; each revoke is audited. SQLite and Postgres.
func TestJoinTokenList(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
		node := modelstest.Node("gpu-07").A100s(1).Register(t, s, t0)
		_, forMachine, err := s.CreateJoinToken(ctx, "admin", "rack-7", 0, t0)
		if err != nil {
			t.Fatal(err)
		}
		_, forNode, err := s.CreateJoinToken(ctx, "admin", "", node.ID, t0.Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		usedTok, used, err := s.CreateJoinToken(ctx, "admin", "rack-9", 0, t0)
		if err != nil {
			t.Fatal(err)
		}
		reg := modelstest.Node("gpu-09").A100s(1).Registration()
		reg.MachineID, reg.JoinTokenHash = "rack-9", models.HashToken(usedTok)
		if _, err := s.RegisterNode(ctx, reg, "hash-gpu-09", t0.Add(2*time.Minute)); err != nil {
			t.Fatalf("register with the token: %v", err)
		}
		rows, err := s.ActiveJoinTokens(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 2 || rows[0].ID != forNode.ID || rows[0].Node != "gpu-07" || rows[1].ID != forMachine.ID ||
			rows[1].MachineID != "rack-7" || rows[1].Node != "" || rows[1].CreatedBy != "admin" || !rows[1].CreatedAt.Equal(t0) {
			t.Fatalf("ActiveJoinTokens = %+v, want the node's then rack-7's", rows)
		}
		if err := s.RevokeJoinToken(ctx, "root", forNode.ID, t0.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if rows, _ := s.ActiveJoinTokens(ctx); len(rows) != 1 || rows[0].ID != forMachine.ID {
			t.Errorf("after the revoke: %+v, want rack-7's only", rows)
		}
		for name, tc := range map[string]struct {
			id   int64
			want error
		}{"revoked": {forNode.ID, models.ErrConflict}, "used": {used.ID, models.ErrConflict}, "unknown": {999, models.ErrNotFound}} {
			if err := s.RevokeJoinToken(ctx, "root", tc.id, t0.Add(time.Hour)); !errors.Is(err, tc.want) {
				t.Errorf("revoke a %s token = %v, want %v", name, err, tc.want)
			}
		}
		log, err := s.AuditLog(ctx, models.AuditFilter{Action: models.AuditJoinTokenRevoke})
		if err != nil || len(log) != 1 || log[0].Actor != "root" || log[0].Subject != "node gpu-07" {
			t.Errorf("audit of revokes = %+v, %v; want root's revoke of node gpu-07's token", log, err)
		}
		nodes, err := s.JoinTokenNodes(ctx)
		if err != nil || len(nodes) != 2 || nodes[0].Hostname != "gpu-07" || nodes[1].Hostname != "gpu-09" || nodes[1].MachineID != "rack-9" {
			t.Errorf("JoinTokenNodes = %+v, %v; want gpu-07 and gpu-09 (rack-9)", nodes, err)
		}
	})
}

// TestJoinTokenRevokedWhileUsed: a registration spending a token and its revoke at the same
// moment: exactly one of them wins, on SQLite and Postgres.
func TestJoinTokenRevokedWhileUsed(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx := context.Background()
		t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
		for i := range 5 {
			host := "race-" + string(rune('a'+i))
			tok, jt, err := s.CreateJoinToken(ctx, "admin", host, 0, t0)
			if err != nil {
				t.Fatal(err)
			}
			reg := modelstest.Node(host).A100s(1).Registration()
			reg.MachineID, reg.JoinTokenHash = host, models.HashToken(tok)
			var regErr, revErr error
			var wg sync.WaitGroup
			wg.Go(func() { _, regErr = s.RegisterNode(ctx, reg, "hash-race", t0) })
			wg.Go(func() { revErr = s.RevokeJoinToken(ctx, "admin", jt.ID, t0) })
			wg.Wait()
			if (regErr == nil) == (revErr == nil) {
				t.Fatalf("round %d: register = %v, revoke = %v; want exactly one to succeed", i, regErr, revErr)
			}
		}
	})
}
