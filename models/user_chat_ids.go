package models

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"gorm.io/gorm"
)

// AuditUserChatIDs is the audit action of a change of a user's chat ids.
const AuditUserChatIDs = "user-chat-ids"

// ChatIDs are a user's ids in the team's chats, each empty for none: the DingTalk userId or
// mobile number, the Feishu open_id and the WeCom userid. The chat robots mention the user by
// them when a message asks the user to act (their idle task's notice), so the chat tells them.
type ChatIDs struct {
	DingTalk, Feishu, WeCom string
}

// chatID is what a chat id may be: the ids DingTalk, Feishu and WeCom issue (and mobile
// numbers) are letters, digits and "_-.@+", none of which is markup in a message.
var chatID = regexp.MustCompile(`^[A-Za-z0-9_.@+-]{1,64}$`)

// SetChatIDs sets the chat ids of the user name: the user themself on their account page, or
// an admin. A bad id is named by its field (chat_dingtalk, chat_feishu, chat_wecom).
func (s *Store) SetChatIDs(ctx context.Context, actor, name string, ids ChatIDs, now time.Time) error {
	var errs FieldErrors
	for _, f := range []struct{ field, v string }{{"chat_dingtalk", ids.DingTalk}, {"chat_feishu", ids.Feishu}, {"chat_wecom", ids.WeCom}} {
		if f.v != "" && !chatID.MatchString(f.v) {
			errs = append(errs, Invalid(f.field, "must be an id of the chat: 1 to 64 letters, digits, '.', '_', '-', '@' or '+'"))
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var u User
		if err := tx.Scopes(textIs("name", name)).Take(&u).Error; err != nil {
			return notFound("user "+name, err)
		}
		old := ChatIDs{u.ChatDingTalk, u.ChatFeishu, u.ChatWeCom}
		if old == ids {
			return nil
		}
		if err := tx.Model(&User{}).Where("id = ?", u.ID).Updates(map[string]any{
			"chat_dingtalk": ids.DingTalk, "chat_feishu": ids.Feishu, "chat_wecom": ids.WeCom}).Error; err != nil {
			return fmt.Errorf("models: chat ids of %q: %w", name, err)
		}
		return audit(tx, now, actor, AuditUserChatIDs, nil, "user "+name, old.fields(), ids.fields())
	})
}

// ChatIDsOf is the chat ids of the user name; none for a name no user has (a task's owner
// who never had an account).
func (s *Store) ChatIDsOf(ctx context.Context, name string) (ChatIDs, error) {
	var u User
	err := s.db.WithContext(ctx).Select("chat_dingtalk", "chat_feishu", "chat_wecom").Scopes(textIs("name", name)).Take(&u).Error
	switch {
	case errors.Is(err, gorm.ErrRecordNotFound):
		return ChatIDs{}, nil
	case err != nil:
		return ChatIDs{}, fmt.Errorf("models: chat ids of %q: %w", name, err)
	}
	return ChatIDs{u.ChatDingTalk, u.ChatFeishu, u.ChatWeCom}, nil
}

// fields is ids as the audit log records them.
func (ids ChatIDs) fields() map[string]string {
	return map[string]string{"chat_dingtalk": ids.DingTalk, "chat_feishu": ids.Feishu, "chat_wecom": ids.WeCom}
}
