package models

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"
	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Global roles. A user with RoleUser has rights only through project memberships (lead or
// member); admin, finance and viewer apply everywhere.
const (
	RoleAdmin   = "admin"
	RoleFinance = "finance"
	RoleViewer  = "viewer"
	RoleUser    = "user"
)

// Project roles of a membership.
const (
	ProjectRoleLead   = "lead"
	ProjectRoleMember = "member"
)

// User is a person who logs in.
type User struct {
	ID           int64
	Name         string
	PasswordHash string `json:"-"`
	Role         string
	Disabled     bool
	CreatedAt    time.Time
	// UnixAccount is the account on the nodes that the user's tasks run as; "" for none
	// set (a pool may then use the user's name: PoolConfig.AccountsByName).
	UnixAccount string
	// ChatDingTalk, ChatFeishu and ChatWeCom are the user's ids in the team's chats (ChatIDs);
	// "" for none.
	ChatDingTalk string `gorm:"column:chat_dingtalk"`
	ChatFeishu   string `gorm:"column:chat_feishu"`
	ChatWeCom    string `gorm:"column:chat_wecom"`
	// Source is where the user signs in: "" with a local password, or the directory or team
	// chat (SourceOIDC, SourceLDAP, SourceDingTalk, SourceFeishu, SourceWeCom) that vouches
	// for them; ExternalID is that directory's id of them.
	Source     string
	ExternalID string `json:"-"`
	// SSORefresh is an OIDC user's refresh token, sealed by the relying party (sso.OIDC),
	// with which the provider is asked on a period whether it still vouches for them; "" for
	// none.
	SSORefresh string `gorm:"column:sso_refresh" json:"-"`
}

// ProjectMember gives a user a role in a project.
type ProjectMember struct {
	ProjectID int64 `gorm:"primaryKey;autoIncrement:false"`
	UserID    int64 `gorm:"primaryKey;autoIncrement:false"`
	Role      string
}

var userName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$`)

// bcryptCost is the work factor of password hashes.
const bcryptCost = 11

// CreateUser adds a user with a bcrypt hash of password; a bad name, role and password are
// named together.
func (s *Store) CreateUser(ctx context.Context, name, password, role string, now time.Time) (User, error) {
	var ps Problems
	if !userName.MatchString(name) {
		ps.Add(fieldErr("name", "use 1 to 63 letters, digits, '.', '_' or '-'"))
	}
	switch role {
	case RoleAdmin, RoleFinance, RoleViewer, RoleUser:
	default:
		ps.Add(fieldErr("role", "must be admin, finance, viewer or user, got %q", truncate(role, 20)))
	}
	ps.Add(checkPassword(password))
	if err := ps.Err(); err != nil {
		return User{}, err
	}
	hash, err := hashPassword(password)
	if err != nil {
		return User{}, err
	}
	u := User{Name: name, PasswordHash: hash, Role: role, CreatedAt: UTC(now)}
	if err := s.db.WithContext(ctx).Create(&u).Error; err != nil {
		var n int64
		s.db.WithContext(ctx).Model(&User{}).Where("name = ?", name).Count(&n)
		if n > 0 {
			return User{}, fieldErr("name", "user %q exists", name)
		}
		return User{}, fmt.Errorf("models: create user %q: %w", name, err)
	}
	return u, nil
}

// dummyHash makes a login for an unknown name cost as much as one for a known name. It is
// made at the first login, not when the package loads: every kashi command loads models,
// and a hash at this cost takes a sizeable fraction of a second.
var dummyHash = sync.OnceValue(func() []byte {
	h, _ := bcrypt.GenerateFromPassword([]byte("kashi-dummy-password"), bcryptCost) // errs only for a cost out of range
	return h
})

// Authenticate returns the user whose name and password match; ErrNotFound otherwise (the
// same error for an unknown name, a wrong password and a disabled user).
func (s *Store) Authenticate(ctx context.Context, name, password string) (User, error) {
	// The first login makes the dummy hash whatever the name, so that its time tells nothing
	// of whether the name is known.
	dummy := dummyHash()
	var u User
	err := s.db.WithContext(ctx).Scopes(textIs("name", name)).Take(&u).Error
	hash := []byte(u.PasswordHash)
	switch {
	case errors.Is(err, gorm.ErrRecordNotFound):
		hash = dummy
	case err != nil:
		return User{}, fmt.Errorf("models: login %q: %w", name, err)
	}
	var mismatch error
	if err := withHashSlot(ctx, func() { mismatch = bcrypt.CompareHashAndPassword(hash, []byte(password)) }); err != nil {
		return User{}, fmt.Errorf("models: login %q: %w", name, err)
	}
	// A directory's user signs in through the directory only, even with a password an admin
	// set them.
	if u.ID == 0 || mismatch != nil || u.Disabled || u.Source != "" {
		return User{}, fmt.Errorf("models: login %q: %w", name, ErrNotFound)
	}
	return u, nil
}

// UserByName returns the named user.
func (s *Store) UserByName(ctx context.Context, name string) (User, error) {
	var u User
	if err := s.db.WithContext(ctx).Scopes(textIs("name", name)).Take(&u).Error; err != nil {
		return u, notFound("user "+name, err)
	}
	return u, nil
}

// Users returns every user by name.
func (s *Store) Users(ctx context.Context) ([]User, error) {
	var out []User
	if err := s.db.WithContext(ctx).Order("name").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: users: %w", err)
	}
	return out, nil
}

// SetMember gives user a role (lead or member) in project, or removes the membership when
// role is empty.
func (s *Store) SetMember(ctx context.Context, projectID, userID int64, role string) error {
	db := s.db.WithContext(ctx)
	switch role {
	case "":
		return db.Where("project_id = ? AND user_id = ?", projectID, userID).Delete(&ProjectMember{}).Error
	case ProjectRoleLead, ProjectRoleMember:
	default:
		return fieldErr("role", "must be lead or member, got %q", truncate(role, 20))
	}
	m := ProjectMember{ProjectID: projectID, UserID: userID, Role: role}
	err := db.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "project_id"}, {Name: "user_id"}},
		DoUpdates: clause.AssignmentColumns([]string{"role"})}).Create(&m).Error
	if err != nil {
		return fmt.Errorf("models: set member: %w", err)
	}
	return nil
}

// Memberships returns the user's project roles by project id.
func (s *Store) Memberships(ctx context.Context, userID int64) (map[int64]string, error) {
	var rows []ProjectMember
	if err := s.db.WithContext(ctx).Where("user_id = ?", userID).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("models: memberships of user %d: %w", userID, err)
	}
	out := make(map[int64]string, len(rows))
	for _, r := range rows {
		out[r.ProjectID] = r.Role
	}
	return out, nil
}

// ProjectMembers returns a project's members with their user names.
func (s *Store) ProjectMembers(ctx context.Context, projectID int64) ([]MemberRow, error) {
	var out []MemberRow
	err := s.db.WithContext(ctx).Table("project_members").Select("project_members.*, users.name AS user_name").
		Joins("JOIN users ON users.id = project_members.user_id").Where("project_id = ?", projectID).
		Order("users.name").Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("models: members of project %d: %w", projectID, err)
	}
	return out, nil
}

// MemberRow is a membership with the user's name.
type MemberRow struct {
	ProjectMember
	UserName string
}

func (User) TableName() string          { return "users" }
func (ProjectMember) TableName() string { return "project_members" }
