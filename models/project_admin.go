package models

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"gorm.io/gorm"
)

// projectNameRE is a new project's name: it appears in URLs and downloads, so letters,
// digits, '.', '_' and '-' only, starting with a letter or digit. Its length is checked
// apart (at most 100 bytes): a counted repeat of the Unicode classes, {0,99}, compiles to
// 4 MB and tens of milliseconds when the package loads, which every kashi command pays.
var projectNameRE = regexp.MustCompile(`^[\p{L}\p{N}][\p{L}\p{N}._-]*$`)

// Audit actions of projects.
const (
	AuditProjectCreate    = "project-create"
	AuditProjectArchive   = "project-archive"
	AuditProjectUnarchive = "project-unarchive"
	AuditProjectTags      = "project-tags"
)

// CreateProject adds a project with its tags (see SetProjectTags), recording it in the audit
// log. A name in use is a FieldError on "name".
func (s *Store) CreateProject(ctx context.Context, actor, name string, tags []string, now time.Time) (Project, error) {
	var ps Problems
	if len(name) > 100 || !projectNameRE.MatchString(name) {
		ps.Add(fieldErr("name", "use 1 to 100 letters, digits, '.', '_' or '-', starting with a letter or digit"))
	}
	clean, err := cleanTags(tags)
	if err := ps.Add(err); err != nil {
		return Project{}, err
	}
	if err := ps.Err(); err != nil {
		return Project{}, err
	}
	p := Project{Name: name, Tags: clean, CreatedAt: UTC(now)}
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var n int64
		if err := tx.Model(&Project{}).Where("name = ?", name).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return fieldErr("name", "project %q exists", name)
		}
		if err := tx.Create(&p).Error; err != nil {
			return err
		}
		return audit(tx, now, actor, AuditProjectCreate, &p.ID, "project "+name, nil, map[string]string{"name": name, "tags": clean})
	})
	if err != nil {
		var fe *FieldError
		if errors.As(err, &fe) {
			return Project{}, err
		}
		return Project{}, fmt.Errorf("models: create project %q: %w", name, err)
	}
	return p, nil
}

// SetProjectArchived archives a project (it keeps its tasks, bills and quotas but takes no
// new tasks or quota requests) or takes it back into use, recording the change in the audit
// log. Archiving an archived project changes nothing.
func (s *Store) SetProjectArchived(ctx context.Context, actor string, projectID int64, archived bool, now time.Time) error {
	now = UTC(now)
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var p Project
		if err := forUpdate(tx).Where("id = ?", projectID).Take(&p).Error; err != nil {
			return notFound(fmt.Sprintf("project %d", projectID), err)
		}
		if (p.ArchivedAt != nil) == archived {
			return nil
		}
		var at *time.Time
		action := AuditProjectUnarchive
		if archived {
			at, action = &now, AuditProjectArchive
		}
		if err := tx.Model(&Project{}).Where("id = ?", projectID).Update("archived_at", at).Error; err != nil {
			return err
		}
		return audit(tx, now, actor, action, &projectID, "project "+p.Name,
			map[string]*time.Time{"archived_at": p.ArchivedAt}, map[string]*time.Time{"archived_at": at})
	})
	if err != nil {
		return fmt.Errorf("models: archive project %d: %w", projectID, err)
	}
	return nil
}

// checkInUse refuses a project that is archived, naming field.
func checkInUse(p Project, field string) error {
	if p.ArchivedAt != nil {
		return fieldErr(field, "project %q is archived", p.Name)
	}
	return nil
}
