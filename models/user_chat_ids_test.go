package models_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"kashi/models"
	"kashi/models/modelstest"
)

// TestChatIDs: a user's chat ids are stored, read back and audited on both databases; a bad
// id is refused naming its field and stores nothing; a name no user has has none.
func TestChatIDs(t *testing.T) {
	modelstest.ForEachDB(t, models.Options{}, func(t *testing.T, s *models.Store) {
		ctx, now := context.Background(), time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
		if _, err := s.CreateUser(ctx, "ana", "pw-ana-1", models.RoleUser, now); err != nil {
			t.Fatal(err)
		}
		ids := models.ChatIDs{DingTalk: "+8613800000000", Feishu: "ou_7f3a9c", WeCom: "ana.li"}
		if err := s.SetChatIDs(ctx, "ana", "ana", ids, now); err != nil {
			t.Fatal(err)
		}
		bad := models.ChatIDs{DingTalk: "13800000000", Feishu: "<at id=all>", WeCom: "ana"}
		err := s.SetChatIDs(ctx, "ana", "ana", bad, now)
		if fe := models.AllFieldErrors(err); len(fe) != 1 || fe[0].Field != "chat_feishu" {
			t.Errorf("SetChatIDs(%+v) = %v, want chat_feishu refused", bad, err)
		}
		if got, err := s.ChatIDsOf(ctx, "ana"); err != nil || got != ids {
			t.Errorf("ChatIDsOf(ana) = %+v, %v; want %+v, the refused change not stored", got, err, ids)
		}
		if got, err := s.ChatIDsOf(ctx, "nobody"); err != nil || got != (models.ChatIDs{}) {
			t.Errorf("ChatIDsOf(nobody) = %+v, %v; want none", got, err)
		}
		if err := s.SetChatIDs(ctx, "ana", "nobody", ids, now); !errors.Is(err, models.ErrNotFound) {
			t.Errorf("SetChatIDs of no user = %v, want not found", err)
		}
		rows, err := s.AuditLog(ctx, models.AuditFilter{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range rows {
			if r.Action == models.AuditUserChatIDs {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d chat id changes audited, want 1", n)
		}
	})
}
