package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode"

	"gorm.io/gorm"
)

// CreateTemplate validates and stores a new template of a project, as version 1. A name the
// project already uses is a FieldError on "name".
func (s *Store) CreateTemplate(ctx context.Context, nt NewTemplate, by string, lim TaskLimits, now time.Time) (TaskTemplate, error) {
	now = UTC(now)
	var t TaskTemplate
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		body, err := s.checkTemplate(tx, nt, by, lim)
		if err != nil {
			return err
		}
		if err := nameFree(tx, nt.ProjectID, nt.Name, 0); err != nil {
			return err
		}
		t = TaskTemplate{ProjectID: nt.ProjectID, Name: nt.Name, Description: nt.Description, Version: 1, Body: body,
			CreatedBy: by, CreatedAt: now, UpdatedAt: now}
		if err := tx.Create(&t).Error; err != nil {
			return err
		}
		return tx.Create(&TaskTemplateVersion{TemplateID: t.ID, Version: 1, By: by, At: now, Description: nt.Description,
			Body: body, Diff: "[]"}).Error
	})
	if err != nil {
		return TaskTemplate{}, templateErr("create", nt, err)
	}
	return t, nil
}

// UpdateTemplate replaces a template's name, description and body as a new version that
// records who, when and what changed. A change that changes nothing makes no version.
func (s *Store) UpdateTemplate(ctx context.Context, id int64, nt NewTemplate, by string, lim TaskLimits, now time.Time) (TaskTemplate, error) {
	now = UTC(now)
	var t TaskTemplate
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := forUpdate(tx).Where("id = ?", id).Take(&t).Error; err != nil {
			return notFound(fmt.Sprintf("template %d", id), err)
		}
		_, err := s.newVersion(tx, &t, nt, 0, by, lim, now)
		return err
	})
	if err != nil {
		return TaskTemplate{}, templateErr("update", nt, err)
	}
	return t, nil
}

// RollBackTemplate makes an earlier version of template id current again, as a new version
// equal to it (its description and body; the template keeps its name) that records who, when,
// what changed and the version it restores, with an audit entry, all in one transaction. A
// version that is not an earlier one is a FieldError on "version"; fields that the task rules
// now refuse (a spec no pool has any more, a path check on a server without data roots) are
// refused as an update of them would be. When they are the current fields already, nothing
// changes and changed is false.
func (s *Store) RollBackTemplate(ctx context.Context, id int64, version int, by string, lim TaskLimits, now time.Time) (t TaskTemplate, changed bool, err error) {
	now = UTC(now)
	var nt NewTemplate
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := forUpdate(tx).Where("id = ?", id).Take(&t).Error; err != nil {
			return notFound(fmt.Sprintf("template %d", id), err)
		}
		if version < 1 || version >= t.Version {
			if t.Version == 1 {
				return fieldErr("version", "the template has one version: there is none earlier to roll back to")
			}
			return fieldErr("version", "must be an earlier version, from 1 to %d, got %d", t.Version-1, version)
		}
		var v TaskTemplateVersion
		if err := tx.Where("template_id = ? AND version = ?", id, version).Take(&v).Error; err != nil {
			return notFound(fmt.Sprintf("template %d version %d", id, version), err)
		}
		nt = NewTemplate{Name: t.Name, Description: v.Description, Body: v.Fields()}
		before := t.Version
		if changed, err = s.newVersion(tx, &t, nt, version, by, lim, now); err != nil || !changed {
			return err
		}
		return audit(tx, now, by, AuditTemplateRollback, &t.ProjectID, "template "+t.Name,
			map[string]int{"version": before}, map[string]int{"version": t.Version, "restores": version})
	})
	if err != nil {
		return TaskTemplate{}, false, templateErr("roll back", nt, err)
	}
	return t, changed, nil
}

// newVersion makes nt the fields of template t (locked by the caller's transaction) as its
// next version, which restores the earlier version restores (0 for none); nothing changes,
// and changed is false, when nt differs in nothing.
func (s *Store) newVersion(tx *gorm.DB, t *TaskTemplate, nt NewTemplate, restores int, by string, lim TaskLimits, now time.Time) (changed bool, err error) {
	nt.ProjectID = t.ProjectID
	if t.Fields().IsPipeline() != nt.Body.IsPipeline() {
		return false, fieldErr("stages", "a task template stays a task template, a pipeline template a pipeline template")
	}
	body, err := s.checkTemplate(tx, nt, by, lim)
	if err != nil {
		return false, err
	}
	if err := nameFree(tx, t.ProjectID, nt.Name, t.ID); err != nil {
		return false, err
	}
	diff := bodyDiff(t.Description, nt.Description, t.Fields(), nt.Body)
	if t.Name != nt.Name {
		b, _ := json.Marshal(t.Name)
		a, _ := json.Marshal(nt.Name)
		diff = append([]FieldChange{{Field: "name", Before: string(b), After: string(a)}}, diff...)
	}
	if len(diff) == 0 {
		return false, nil
	}
	d, _ := json.Marshal(diff)
	t.Name, t.Description, t.Body, t.Version, t.UpdatedAt = nt.Name, nt.Description, body, t.Version+1, now
	if err := tx.Save(t).Error; err != nil {
		return false, err
	}
	return true, tx.Create(&TaskTemplateVersion{TemplateID: t.ID, Version: t.Version, By: by, At: now,
		Description: nt.Description, Body: body, Diff: string(d), Restores: restores}).Error
}

// templateErr passes field errors and not-found on, and wraps the rest.
func templateErr(verb string, nt NewTemplate, err error) error {
	var fe *FieldError
	if errors.As(err, &fe) || errors.Is(err, ErrNotFound) {
		return err
	}
	return fmt.Errorf("models: %s template %q: %w", verb, nt.Name, err)
}

// checkTemplate validates a template: its name and description, and its body as a task of
// the project would be (env values stand in empty). It returns the body as stored.
func (s *Store) checkTemplate(tx *gorm.DB, nt NewTemplate, by string, lim TaskLimits) (string, error) {
	var ps Problems
	ps.Add(checkName("name", nt.Name, 100))
	if strings.ContainsFunc(nt.Name, unicode.IsControl) {
		ps.Add(fieldErr("name", "must not contain control characters"))
	}
	if len(nt.Description) > 1000 {
		ps.Add(fieldErr("description", "at most 1,000 bytes"))
	}
	if len(nt.Body.EnvNames) > 256 {
		ps.Add(fieldErr("env_names", "at most 256 names"))
	}
	env := make(map[string]string, len(nt.Body.EnvNames))
	for _, n := range nt.Body.EnvNames {
		if !envName.MatchString(n) || len(n) > 128 {
			ps.Add(fieldErr("env_names", "%q is not a variable name", truncate(n, 40)))
			break
		}
		if _, dup := env[n]; dup {
			ps.Add(fieldErr("env_names", "%q is named twice", n))
			break
		}
		env[n] = ""
	}
	var p Project
	if err := tx.Where("id = ?", nt.ProjectID).Take(&p).Error; err != nil {
		return "", notFound(fmt.Sprintf("project %d", nt.ProjectID), err)
	}
	if nt.Body.IsPipeline() {
		// A pipeline template's body is checked as the pipeline it submits.
		if err := ps.Add(s.checkPipelineTemplate(tx, p, nt, by, lim)); err != nil {
			return "", err
		}
	} else {
		// The body is checked as the task it submits, every field of it too.
		var scratch Task
		if err := ps.Add(s.taskFromNew(newSubmitReads(tx), nt.Body.NewTask(p.Name, nt.Name, by, env), lim, time.Time{}, &scratch)); err != nil {
			return "", err
		}
	}
	if err := ps.Err(); err != nil {
		return "", err
	}
	b, _ := json.Marshal(nt.Body) // plain data; never fails
	return string(b), nil
}

// checkPipelineTemplate checks a pipeline template's body: no task fields of its own, no
// stage with stages or env names (nobody is there to give a schedule's run their values),
// and the pipeline it submits as CreatePipeline checks it.
func (s *Store) checkPipelineTemplate(tx *gorm.DB, p Project, nt NewTemplate, by string, lim TaskLimits) error {
	var ps Problems
	rest := nt.Body
	rest.Stages = nil
	zero, own := fieldsOf(TemplateBody{}), fieldsOf(rest)
	for _, k := range slices.Sorted(maps.Keys(own)) {
		if v := own[k]; string(v) != string(zero[k]) && string(v) != "[]" && string(v) != "{}" {
			ps.Add(fieldErr(k, "a pipeline template gives its stages' fields, none of its own"))
		}
	}
	for i, st := range nt.Body.Stages {
		if st.Task.IsPipeline() {
			ps.Add(fieldErr(fmt.Sprintf("stages[%d].stages", i), "a stage is a task, not a pipeline"))
		}
		if len(st.Task.EnvNames) > 0 {
			ps.Add(fieldErr(fmt.Sprintf("stages[%d].env_names", i), "a pipeline template's stages name no env variables"))
		}
	}
	if err := ps.Err(); err != nil {
		return err
	}
	_, _, err := s.checkPipeline(tx, nt.Body.NewPipeline(p.Name, nt.Name, by), lim, time.Time{})
	return err
}

// ValidateTemplate checks a template by the rules CreateTemplate applies to its fields,
// storing nothing: every bad field at once (FieldErrors), as CreateTemplate names them.
func (s *Store) ValidateTemplate(ctx context.Context, nt NewTemplate, by string, lim TaskLimits) error {
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if _, err := s.checkTemplate(tx, nt, by, lim); err != nil {
			return err
		}
		return errDryRun
	})
	switch {
	case errors.Is(err, errDryRun):
		return nil
	case AllFieldErrors(err) != nil:
		return err
	}
	return fmt.Errorf("models: validate template: %w", err)
}

// nameFree refuses a template name the project's other templates use.
func nameFree(tx *gorm.DB, projectID int64, name string, except int64) error {
	var n int64
	if err := tx.Model(&TaskTemplate{}).Where("project_id = ? AND name = ? AND id <> ?", projectID, name, except).Count(&n).Error; err != nil {
		return err
	}
	if n > 0 {
		return fieldErr("name", "the project already has a template named %q", name)
	}
	return nil
}

// TemplateByID returns a template.
func (s *Store) TemplateByID(ctx context.Context, id int64) (TaskTemplate, error) {
	var t TaskTemplate
	if err := s.db.WithContext(ctx).Where("id = ?", id).Take(&t).Error; err != nil {
		return t, notFound(fmt.Sprintf("template %d", id), err)
	}
	return t, nil
}

// TemplateVersions returns a template's versions, newest first.
func (s *Store) TemplateVersions(ctx context.Context, id int64) ([]TaskTemplateVersion, error) {
	var out []TaskTemplateVersion
	if err := s.db.WithContext(ctx).Where("template_id = ?", id).Order("version DESC").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("models: template %d versions: %w", id, err)
	}
	return out, nil
}

// TemplateVersion returns one version of a template.
func (s *Store) TemplateVersion(ctx context.Context, id int64, version int) (TaskTemplateVersion, error) {
	var v TaskTemplateVersion
	if err := s.db.WithContext(ctx).Where("template_id = ? AND version = ?", id, version).Take(&v).Error; err != nil {
		return v, notFound(fmt.Sprintf("template %d version %d", id, version), err)
	}
	return v, nil
}

// Templates returns a project's templates by name, each with the count of tasks submitted
// from it.
func (s *Store) Templates(ctx context.Context, projectID int64) ([]TemplateRow, error) {
	var out []TemplateRow
	err := s.db.WithContext(ctx).Model(&TaskTemplate{}).
		Select("task_templates.*, (SELECT COUNT(*) FROM tasks WHERE tasks.template_id = task_templates.id) AS uses").
		Where("task_templates.project_id = ?", projectID).Order("task_templates.name").Scan(&out).Error
	if err != nil {
		return nil, fmt.Errorf("models: templates of project %d: %w", projectID, err)
	}
	return out, nil
}

// TemplateUses counts the tasks submitted from a template.
func (s *Store) TemplateUses(ctx context.Context, id int64) (int64, error) {
	var n int64
	if err := s.db.WithContext(ctx).Model(&Task{}).Where("template_id = ?", id).Count(&n).Error; err != nil {
		return 0, fmt.Errorf("models: uses of template %d: %w", id, err)
	}
	return n, nil
}
