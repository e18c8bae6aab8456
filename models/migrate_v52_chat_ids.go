package models

import "gorm.io/gorm"

// Migration 52's frozen addition: a user's ids in the team's chats, for the robots to
// mention them.
type v52User struct {
	ChatDingTalk string `gorm:"column:chat_dingtalk;size:64;not null;default:''"`
	ChatFeishu   string `gorm:"column:chat_feishu;size:64;not null;default:''"`
	ChatWeCom    string `gorm:"column:chat_wecom;size:64;not null;default:''"`
}

func (v52User) TableName() string { return "users" }

// migrateV52ChatIDs gives each user chat ids, empty: none set yet.
func migrateV52ChatIDs(tx *gorm.DB) error {
	for _, f := range []string{"ChatDingTalk", "ChatFeishu", "ChatWeCom"} {
		if err := tx.Migrator().AddColumn(&v52User{}, f); err != nil {
			return err
		}
	}
	return nil
}
