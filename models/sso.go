package models

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Sign-in methods: a local password, a directory, or a team chat. A directory's or chat's
// users carry its method as their Source.
const (
	MethodPassword = "password"
	SourceOIDC     = "oidc"
	SourceLDAP     = "ldap"
	SourceDingTalk = "dingtalk"
	SourceFeishu   = "feishu"
	SourceWeCom    = "wecom"
)

// SSOMethods are the directories and chats people sign in through, as mapping rules name
// them.
var SSOMethods = []string{SourceOIDC, SourceLDAP, SourceDingTalk, SourceFeishu, SourceWeCom}

// ssoMethodProblem names a method that is none of SSOMethods; nil for one of them.
func ssoMethodProblem(m string) error {
	if slices.Contains(SSOMethods, m) {
		return nil
	}
	return fieldErr("method", "must be oidc, ldap, dingtalk, feishu or wecom, got %q", truncate(m, 20))
}

// AuditSSORuleCreate and AuditSSORuleDelete record an admin's change of the group mapping.
const (
	AuditSSORuleCreate = "sso-rule-create"
	AuditSSORuleDelete = "sso-rule-delete"
	// AuditSSOSync: the directory's periodic sync changed a user's role or memberships.
	AuditSSOSync = "sso-sync"
)

// SSORule maps a directory group to a site role (admin, finance, viewer; ProjectID nil) or
// to a project role (lead, member). Rules are applied at every sign-in: a user's role and
// memberships become exactly what their groups' rules give.
type SSORule struct {
	ID        int64
	Method    string
	GroupName string
	ProjectID *int64
	Role      string
	CreatedBy string
	CreatedAt time.Time
	// ProjectName names the project (read from the projects, or given by a configured rule);
	// "" for a site role.
	ProjectName string `gorm:"-"`
	// Configured marks a rule of the configuration file: applied, shown, not editable.
	Configured bool `gorm:"-"`
}

func (SSORule) TableName() string { return "sso_rules" }

// siteRank orders site roles: a user in groups of several gets the highest.
var siteRank = map[string]int{RoleUser: 0, RoleViewer: 1, RoleFinance: 2, RoleAdmin: 3}

// checkSSORule validates a rule's method, group and role; a project role needs a project, a
// site role none.
func checkSSORule(r SSORule) error {
	var ps Problems
	if err := ssoMethodProblem(r.Method); err != nil {
		ps.Add(err)
	}
	if g := strings.TrimSpace(r.GroupName); g == "" || len(g) > 500 {
		ps.Add(fieldErr("group", "must be 1 to 500 characters"))
	}
	project := r.ProjectID != nil || r.ProjectName != ""
	switch r.Role {
	case RoleAdmin, RoleFinance, RoleViewer:
		if project {
			ps.Add(fieldErr("role", "%s is a site role: leave the project out", r.Role))
		}
	case ProjectRoleLead, ProjectRoleMember:
		if !project {
			ps.Add(fieldErr("project", "a %s needs a project", r.Role))
		}
	default:
		ps.Add(fieldErr("role", "must be admin, finance, viewer, lead or member, got %q", truncate(r.Role, 20)))
	}
	return ps.Err()
}

// ParseSSORule reads a rule of the configuration file:
//
//	METHOD:GROUP=ROLE            a site role (admin, finance, viewer)
//	METHOD:GROUP=PROJECT:ROLE    a project role (lead, member)
//
// The group is everything between the first ':' and the last '=', so an LDAP group's DN
// (cn=ml,ou=groups,dc=example,dc=org) is written as it is.
func ParseSSORule(line string) (SSORule, error) {
	method, rest, ok := strings.Cut(strings.TrimSpace(line), ":")
	i := strings.LastIndex(rest, "=")
	if !ok || i < 0 {
		return SSORule{}, fieldErr("rule", "write METHOD:GROUP=ROLE or METHOD:GROUP=PROJECT:ROLE, got %q", truncate(line, 100))
	}
	r := SSORule{Method: method, GroupName: strings.TrimSpace(rest[:i]), Role: rest[i+1:], Configured: true}
	if project, role, ok := strings.Cut(r.Role, ":"); ok {
		r.ProjectName, r.Role = project, role
		if r.ProjectName == "" {
			return SSORule{}, fieldErr("project", "name the project before the role in %q", truncate(line, 100))
		}
	}
	if err := checkSSORule(r); err != nil {
		return SSORule{}, err
	}
	return r, nil
}

// SSORules returns the stored rules with their projects' names, by method, group and id.
func (s *Store) SSORules(ctx context.Context) ([]SSORule, error) {
	var out []SSORule
	if err := s.db.WithContext(ctx).Order("method, group_name, id").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: sso rules: %w", err)
	}
	names, err := s.projectNames(ctx)
	if err != nil {
		return nil, err
	}
	for i, r := range out {
		if r.ProjectID != nil {
			out[i].ProjectName = names[*r.ProjectID]
		}
	}
	return out, nil
}

// projectNames returns every project's name by id.
func (s *Store) projectNames(ctx context.Context) (map[int64]string, error) {
	var ps []Project
	if err := s.db.WithContext(ctx).Select("id, name").Find(&ps).Error; err != nil {
		return nil, fmt.Errorf("models: project names: %w", err)
	}
	out := make(map[int64]string, len(ps))
	for _, p := range ps {
		out[p.ID] = p.Name
	}
	return out, nil
}

// CreateSSORule stores a rule (its project named by ProjectName), by actor, audited in the
// same transaction.
func (s *Store) CreateSSORule(ctx context.Context, actor string, r SSORule, now time.Time) (SSORule, error) {
	r.GroupName = strings.TrimSpace(r.GroupName)
	r.Configured, r.ID, r.ProjectID = false, 0, nil
	if err := checkSSORule(r); err != nil {
		return SSORule{}, err
	}
	r.CreatedBy, r.CreatedAt = actor, UTC(now)
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if r.ProjectName != "" {
			var p Project
			if err := tx.Where("name = ?", r.ProjectName).Take(&p).Error; errors.Is(err, gorm.ErrRecordNotFound) {
				return fieldErr("project", "no project %q", truncate(r.ProjectName, 100))
			} else if err != nil {
				return fmt.Errorf("models: sso rule's project: %w", err)
			}
			r.ProjectID = &p.ID
		}
		if err := tx.Create(&r).Error; err != nil {
			return fmt.Errorf("models: create sso rule: %w", err)
		}
		return audit(tx, now, actor, AuditSSORuleCreate, r.ProjectID, "sso rule "+r.Method+":"+r.GroupName, nil, ruleText(r))
	})
	return r, err
}

// DeleteSSORule removes a stored rule, by actor, audited; an unknown id is ErrNotFound.
func (s *Store) DeleteSSORule(ctx context.Context, actor string, id int64, now time.Time) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var r SSORule
		if err := forUpdate(tx).Take(&r, id).Error; err != nil {
			return notFound(fmt.Sprintf("sso rule %d", id), err)
		}
		res := tx.Delete(&SSORule{}, id)
		if res.Error != nil {
			return fmt.Errorf("models: delete sso rule %d: %w", id, res.Error)
		}
		if res.RowsAffected == 0 {
			return fmt.Errorf("models: sso rule %d: %w", id, ErrNotFound)
		}
		return audit(tx, now, actor, AuditSSORuleDelete, r.ProjectID, "sso rule "+r.Method+":"+r.GroupName, ruleText(r), nil)
	})
}

// ruleText is a rule as the audit log keeps it.
func ruleText(r SSORule) map[string]string {
	return map[string]string{"group": r.GroupName, "role": r.Role, "project": r.ProjectName}
}

// ExternalIdentity is a person as a directory or team chat vouches for them at sign-in.
type ExternalIdentity struct {
	// Method is the directory or chat: one of SSOMethods.
	Method string
	// ID is the directory's stable id of the person (OIDC: the issuer and subject).
	ID string
	// Name is the name the person is known by (preferred_username, uid).
	Name string
	// Groups are the directory groups (a chat's departments) the person is in.
	Groups []string
	// ChatID is the person's id in the team chat Method names, stored as their chat id there
	// so the robots mention them; "" for none (a directory).
	ChatID string
	// Refresh is an OIDC sign-in's sealed refresh token, kept for the provider's check; ""
	// keeps the one stored.
	Refresh string
}

// ErrDisabled is a sign-in of a user an admin or the directory disabled.
var ErrDisabled = errors.New("user disabled")

var notNameChar = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// externalName makes a user name from what the directory calls the person: the part before
// an '@', other characters as '-'.
func externalName(name string) string {
	name, _, _ = strings.Cut(name, "@")
	name = strings.Trim(notNameChar.ReplaceAllString(name, "-"), "-._")
	if len(name) > 55 {
		name = name[:55]
	}
	if name == "" {
		name = "user"
	}
	return name
}

// SignInExternal signs in a person the directory vouched for, in one transaction: it finds
// their user by the directory's id or creates one (just in time, named from id.Name, with a
// suffix when a local or other user has that name: a directory never takes over another
// account), sets their site role and project memberships to exactly what the rules of their
// groups give (stored rules and extra, the configuration's), opens a session with the
// method, and audits the sign-in with what it applied. A disabled user is ErrDisabled.
func (s *Store) SignInExternal(ctx context.Context, id ExternalIdentity, extra []SSORule, lim SessionLimits, now time.Time) (User, string, error) {
	if err := ssoMethodProblem(id.Method); err != nil {
		return User{}, "", err
	}
	switch {
	case len(id.Groups) > 5000:
		return User{}, "", fieldErr("groups", "must be at most 5000, got %d", len(id.Groups))
	case id.ID == "" || len(id.ID) > 500:
		return User{}, "", fieldErr("subject", "must be 1 to 500 bytes")
	}
	now = UTC(now)
	var u User
	var token string
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// The user's row is locked: two sign-ins of one person apply their rules in turn.
		err := forUpdate(tx).Where("source = ? AND external_id = ?", id.Method, id.ID).Take(&u).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			u, err = createExternal(tx, id, now)
		}
		if err != nil {
			return fmt.Errorf("models: sign in %s user: %w", id.Method, err)
		}
		if u.Disabled {
			return fmt.Errorf("models: sign in %q: %w", u.Name, ErrDisabled)
		}
		applied, err := applyRules(tx, &u, id, extra)
		if err != nil {
			return err
		}
		if err := keepSignInIDs(tx, &u, id, applied); err != nil {
			return err
		}
		tok, hash := NewToken("ks_")
		sess := Session{TokenHash: hash, UserID: u.ID, CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(lim.Absolute), Method: id.Method}
		if err := tx.Create(&sess).Error; err != nil {
			return fmt.Errorf("models: create session: %w", err)
		}
		token = tok
		return audit(tx, now, u.Name, AuditLogin, nil, "login", nil, applied)
	})
	return u, token, err
}

// chatColumns are the users' chat id columns by the chat's method.
var chatColumns = map[string]string{SourceDingTalk: "chat_dingtalk", SourceFeishu: "chat_feishu", SourceWeCom: "chat_wecom"}

// maxSealedRefresh bounds a sealed refresh token kept (providers' are at most a few KB).
const maxSealedRefresh = 16000

// keepSignInIDs stores what a sign-in brought besides the groups: the person's id in the
// chat they signed in through (so the robots mention them without their typing it; one the
// chat ids' rule refuses is left out), noted in applied for the audit log, and an OIDC
// sign-in's refresh token.
func keepSignInIDs(tx *gorm.DB, u *User, id ExternalIdentity, applied map[string]any) error {
	set := map[string]any{}
	if col, ok := chatColumns[id.Method]; ok && chatID.MatchString(id.ChatID) {
		set[col] = id.ChatID
		applied["chat_id"] = id.ChatID
	}
	if id.Refresh != "" && id.Refresh != u.SSORefresh && len(id.Refresh) <= maxSealedRefresh {
		set["sso_refresh"] = id.Refresh
	}
	if len(set) == 0 {
		return nil
	}
	if err := tx.Model(&User{}).Where("id = ?", u.ID).Updates(set).Error; err != nil {
		return fmt.Errorf("models: keep sign-in ids of %q: %w", u.Name, err)
	}
	return nil
}

// createExternal creates the user of a directory's identity, named from its name with the
// first free suffix.
func createExternal(tx *gorm.DB, id ExternalIdentity, now time.Time) (User, error) {
	base := externalName(id.Name)
	for i := 1; i <= 100; i++ {
		name := base
		if i > 1 {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		var n int64
		if err := tx.Model(&User{}).Where("name = ?", name).Count(&n).Error; err != nil {
			return User{}, err
		}
		if n > 0 {
			continue
		}
		u := User{Name: name, Role: RoleUser, CreatedAt: now, Source: id.Method, ExternalID: id.ID}
		if err := tx.Create(&u).Error; err != nil {
			return User{}, err
		}
		if err := audit(tx, now, u.Name, AuditUserCreate, nil, "user "+u.Name, nil, map[string]string{"source": id.Method}); err != nil {
			return User{}, err
		}
		return u, nil
	}
	return User{}, fieldErr("name", "no free user name for %q", truncate(id.Name, 100))
}

// applyRules sets u's role and memberships to what the rules of id's groups give, and
// returns what it applied, for the audit log.
func applyRules(tx *gorm.DB, u *User, id ExternalIdentity, extra []SSORule) (map[string]any, error) {
	var rules []SSORule
	if err := tx.Where("method = ?", id.Method).Find(&rules).Error; err != nil {
		return nil, fmt.Errorf("models: sso rules: %w", err)
	}
	for _, r := range extra {
		if r.Method != id.Method {
			continue
		}
		if r.ProjectName != "" {
			var p Project
			if err := tx.Select("id").Where("name = ?", r.ProjectName).Take(&p).Error; errors.Is(err, gorm.ErrRecordNotFound) {
				continue // a configured rule of a project not (or no longer) there gives nothing
			} else if err != nil {
				return nil, fmt.Errorf("models: sso rule's project: %w", err)
			}
			r.ProjectID = &p.ID
		}
		rules = append(rules, r)
	}
	in := func(g string) bool {
		for _, have := range id.Groups {
			if strings.EqualFold(strings.TrimSpace(have), g) {
				return true
			}
		}
		return false
	}
	role, projects := RoleUser, map[int64]string{}
	for _, r := range rules {
		if !in(r.GroupName) {
			continue
		}
		if r.ProjectID == nil {
			if siteRank[r.Role] > siteRank[role] {
				role = r.Role
			}
			continue
		}
		if projects[*r.ProjectID] != ProjectRoleLead {
			projects[*r.ProjectID] = r.Role
		}
	}
	if role != u.Role {
		if err := tx.Model(&User{}).Where("id = ?", u.ID).Update("role", role).Error; err != nil {
			return nil, fmt.Errorf("models: set role of %q: %w", u.Name, err)
		}
		u.Role = role
	}
	var have []ProjectMember
	if err := tx.Where("user_id = ?", u.ID).Find(&have).Error; err != nil {
		return nil, fmt.Errorf("models: memberships of %q: %w", u.Name, err)
	}
	for _, m := range have {
		if _, keep := projects[m.ProjectID]; !keep {
			if err := tx.Where("project_id = ? AND user_id = ?", m.ProjectID, u.ID).Delete(&ProjectMember{}).Error; err != nil {
				return nil, fmt.Errorf("models: end membership of %q: %w", u.Name, err)
			}
		}
	}
	names := map[string]string{}
	var ids []int64
	for pid := range projects {
		ids = append(ids, pid)
	}
	var ps []Project
	if len(ids) > 0 {
		if err := tx.Select("id, name").Where("id IN ?", ids).Find(&ps).Error; err != nil {
			return nil, fmt.Errorf("models: mapped projects: %w", err)
		}
	}
	for _, p := range ps {
		m := ProjectMember{ProjectID: p.ID, UserID: u.ID, Role: projects[p.ID]}
		err := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "project_id"}, {Name: "user_id"}},
			DoUpdates: clause.AssignmentColumns([]string{"role"})}).Create(&m).Error
		if err != nil {
			return nil, fmt.Errorf("models: set membership of %q: %w", u.Name, err)
		}
		names[p.Name] = m.Role
	}
	return map[string]any{"method": id.Method, "role": role, "projects": names}, nil
}

// OpenSession opens a session for a user who signed in with method (MethodPassword) and
// audits the sign-in with it, in one transaction; it returns the session's token.
func (s *Store) OpenSession(ctx context.Context, u User, method string, lim SessionLimits, now time.Time) (string, error) {
	now = UTC(now)
	token, hash := NewToken("ks_")
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		sess := Session{TokenHash: hash, UserID: u.ID, CreatedAt: now, LastSeenAt: now, ExpiresAt: now.Add(lim.Absolute), Method: method}
		if err := tx.Create(&sess).Error; err != nil {
			return fmt.Errorf("models: create session: %w", err)
		}
		return audit(tx, now, u.Name, AuditLogin, nil, "login", nil, map[string]string{"method": method})
	})
	if err != nil {
		return "", err
	}
	return token, nil
}

// SessionMethod returns how the session of token signed in; ErrNotFound for none.
func (s *Store) SessionMethod(ctx context.Context, token string) (string, error) {
	var sess Session
	if err := s.db.WithContext(ctx).Select("method").Where("token_hash = ?", HashToken(token)).Take(&sess).Error; err != nil {
		return "", notFound("session", err)
	}
	return sess.Method, nil
}

// SSOState is a sign-in under way at a directory: what the browser's return must match.
type SSOState struct {
	ID int64
	// Method is the directory or chat the sign-in was begun at: only its return takes it.
	Method    string
	StateHash string
	Nonce     string
	Verifier  string
	Next      string
	ExpiresAt time.Time
}

func (SSOState) TableName() string { return "sso_states" }

// ssoStateLife is how long a sign-in may take at the directory.
const ssoStateLife = 10 * time.Minute

// SaveSSOState keeps a sign-in's method, state (only its hash), nonce, PKCE verifier and the
// page to return to, for ten minutes; sign-ins that expired are dropped.
func (s *Store) SaveSSOState(ctx context.Context, method, state, nonce, verifier, next string, now time.Time) error {
	now = UTC(now)
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Where("expires_at < ?", now).Delete(&SSOState{}).Error; err != nil {
			return fmt.Errorf("models: drop expired sign-ins: %w", err)
		}
		row := SSOState{Method: method, StateHash: HashToken(state), Nonce: nonce, Verifier: verifier, Next: truncate(next, 2000), ExpiresAt: now.Add(ssoStateLife)}
		if err := tx.Create(&row).Error; err != nil {
			return fmt.Errorf("models: save sign-in: %w", err)
		}
		return nil
	})
}

// TakeSSOState returns and deletes the sign-in of state begun at method: each is taken once,
// by one of any number of concurrent tries; an unknown, taken or expired state, or one of
// another method, is ErrNotFound.
func (s *Store) TakeSSOState(ctx context.Context, method, state string, now time.Time) (SSOState, error) {
	db := s.db.WithContext(ctx)
	var row SSOState
	if err := db.Where("state_hash = ? AND method = ?", HashToken(state), method).Take(&row).Error; err != nil {
		return SSOState{}, notFound("sign-in", err)
	}
	res := db.Where("id = ?", row.ID).Delete(&SSOState{})
	if res.Error != nil {
		return SSOState{}, fmt.Errorf("models: take sign-in: %w", res.Error)
	}
	if res.RowsAffected != 1 || UTC(now).After(row.ExpiresAt) {
		return SSOState{}, fmt.Errorf("models: sign-in taken or expired: %w", ErrNotFound)
	}
	return row, nil
}

// ExternalUsers returns the enabled users a directory (SourceLDAP) vouches for, by name.
func (s *Store) ExternalUsers(ctx context.Context, method string) ([]User, error) {
	var out []User
	if err := s.db.WithContext(ctx).Where("source = ? AND NOT disabled", method).Order("name").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: %s users: %w", method, err)
	}
	return out, nil
}

// SyncExternal applies, without a sign-in, the rules of the groups the directory gives now
// to its user of id.ID (role and memberships, as at a sign-in), audited as a sync when
// anything changed. A user not there, or disabled, is left alone.
func (s *Store) SyncExternal(ctx context.Context, id ExternalIdentity, extra []SSORule, now time.Time) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var u User
		err := forUpdate(tx).Where("source = ? AND external_id = ? AND NOT disabled", id.Method, id.ID).Take(&u).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil
		} else if err != nil {
			return fmt.Errorf("models: sync %s user: %w", id.Method, err)
		}
		before, err := accessOf(tx, u)
		if err != nil {
			return err
		}
		applied, err := applyRules(tx, &u, id, extra)
		if err != nil {
			return err
		}
		after, err := accessOf(tx, u)
		if err != nil || before == after {
			return err
		}
		return audit(tx, now, id.Method, AuditSSOSync, nil, "user "+u.Name, nil, applied)
	})
}

// accessOf is a user's role and memberships as one comparable string.
func accessOf(tx *gorm.DB, u User) (string, error) {
	var ms []ProjectMember
	if err := tx.Where("user_id = ?", u.ID).Order("project_id").Find(&ms).Error; err != nil {
		return "", fmt.Errorf("models: memberships of %q: %w", u.Name, err)
	}
	return fmt.Sprint(u.Role, ms), nil
}

// DisableExternal disables the directory's user with externalID, who the directory no
// longer vouches for (gone, or disabled there): their sessions end and their API tokens are
// revoked, audited with the directory as the actor, in one transaction. Unknown or already
// disabled users are left alone.
func (s *Store) DisableExternal(ctx context.Context, method, externalID string, now time.Time) error {
	return s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var u User
		err := forUpdate(tx).Where("source = ? AND external_id = ? AND NOT disabled", method, externalID).Take(&u).Error
		if errors.Is(err, gorm.ErrRecordNotFound) {
			return nil
		} else if err != nil {
			return fmt.Errorf("models: disable %s user: %w", method, err)
		}
		if err := tx.Model(&User{}).Where("id = ?", u.ID).Update("disabled", true).Error; err != nil {
			return fmt.Errorf("models: disable %q: %w", u.Name, err)
		}
		if err := tx.Where("user_id = ?", u.ID).Delete(&Session{}).Error; err != nil {
			return fmt.Errorf("models: end sessions of %q: %w", u.Name, err)
		}
		if err := tx.Model(&APIToken{}).Where("user_id = ? AND revoked_at IS NULL", u.ID).Update("revoked_at", UTC(now)).Error; err != nil {
			return fmt.Errorf("models: revoke tokens of %q: %w", u.Name, err)
		}
		return audit(tx, now, method, AuditUserDisable, nil, "user "+u.Name, map[string]bool{"disabled": false}, map[string]bool{"disabled": true})
	})
}

// SetSSORefresh replaces the sealed refresh token of the directory's user with externalID
// (the provider's check renewed it, or it no longer opens: ""); unknown users are left alone.
func (s *Store) SetSSORefresh(ctx context.Context, method, externalID, sealed string) error {
	if len(sealed) > maxSealedRefresh {
		return fieldErr("refresh", "must be at most %d bytes, got %d", maxSealedRefresh, len(sealed))
	}
	err := s.db.WithContext(ctx).Model(&User{}).Where("source = ? AND external_id = ?", method, externalID).Update("sso_refresh", sealed).Error
	if err != nil {
		return fmt.Errorf("models: refresh token of %s user: %w", method, err)
	}
	return nil
}
