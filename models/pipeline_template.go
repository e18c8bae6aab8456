package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
)

// Pipeline templates (see TemplateBody.Stages) are task templates whose body is a pipeline:
// versioned, rolled back and scheduled as task templates are. Their rules, enforced here:
// only the project's members (and admins) submit one; only its leads (and admins) schedule
// one; a schedule of one skips a run while the last is still going (see CreateSchedule).

// forbiddenField is a refusal for who asks: a field error that is also ErrForbidden, so
// that the API answers 403 naming the field.
type forbiddenField struct{ *FieldError }

func (e forbiddenField) Unwrap() []error { return []error{e.FieldError, ErrForbidden} }

// projectRole is what user name may do in project: admin (an admin, not disabled), and
// their role there ("" when not a member, or when the user does not exist or is disabled).
func projectRole(tx *gorm.DB, name string, projectID int64) (admin bool, role string, err error) {
	var u User
	err = tx.Scopes(textIs("name", name)).Take(&u).Error
	switch {
	case errors.Is(err, gorm.ErrRecordNotFound):
		return false, "", nil
	case err != nil:
		return false, "", err
	case u.Disabled:
		return false, "", nil
	}
	var pm []ProjectMember
	if err := tx.Where("project_id = ? AND user_id = ?", projectID, u.ID).Find(&pm).Error; err != nil {
		return false, "", err
	}
	if len(pm) > 0 {
		role = pm[0].Role
	}
	return u.Role == RoleAdmin, role, nil
}

// SubmitPipelineTemplate submits the pipeline of a pipeline template's current version for
// by, named after the template, in one transaction. A task template is a FieldError on
// "template"; by must be a member of the template's project or an admin (ErrForbidden
// otherwise).
func (s *Store) SubmitPipelineTemplate(ctx context.Context, templateID int64, by string, lim TaskLimits, now time.Time) (Pipeline, error) {
	var pipe Pipeline
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var tpl TaskTemplate
		if err := tx.Where("id = ?", templateID).Take(&tpl).Error; err != nil {
			return notFound(fmt.Sprintf("template %d", templateID), err)
		}
		body := tpl.Fields()
		if !body.IsPipeline() {
			return fieldErr("template", "%s is a task template: submit it as a task", tpl.Name)
		}
		admin, role, err := projectRole(tx, by, tpl.ProjectID)
		if err != nil {
			return err
		}
		if !admin && role == "" {
			return forbiddenField{Invalid("template", "only the project's members submit its templates")}
		}
		var p Project
		if err := tx.Where("id = ?", tpl.ProjectID).Take(&p).Error; err != nil {
			return notFound(fmt.Sprintf("project %d", tpl.ProjectID), err)
		}
		pipe, err = s.createPipeline(tx, body.NewPipeline(p.Name, tpl.Name, by), lim, now)
		return err
	})
	if err != nil {
		if AllFieldErrors(err) != nil || errors.Is(err, ErrNotFound) {
			return Pipeline{}, err
		}
		return Pipeline{}, fmt.Errorf("models: submit pipeline template %d: %w", templateID, err)
	}
	return pipe, nil
}

// checkPipelineSchedule refuses a schedule of pipeline template tpl that its owner may not
// make (only the project's leads and admins schedule) or that would overlap its runs.
func checkPipelineSchedule(tx *gorm.DB, tpl TaskTemplate, ts TaskSchedule) error {
	if ts.Overlap != "skip" {
		return fieldErr("overlap", "a pipeline template's schedule skips a run while the last one is still going: must be skip, got %q", truncate(ts.Overlap, 20))
	}
	admin, role, err := projectRole(tx, ts.Owner, tpl.ProjectID)
	if err != nil {
		return err
	}
	if !admin && role != ProjectRoleLead {
		return forbiddenField{Invalid("template", "only the project's leads and admins schedule its pipeline templates")}
	}
	return nil
}
