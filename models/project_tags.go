package models

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"
)

// tagRE is a tag: a word of letters, digits, '.', '_', '-' and spaces starting with a letter
// or digit, or key=value of two such words (cost-center=CC-1001), as finance systems and
// clouds tag things; at most 40 runes (maxTagRunes).
var tagRE = regexp.MustCompile(`^[\p{L}\p{N}][\p{L}\p{N}._ -]*(=[\p{L}\p{N}][\p{L}\p{N}._ -]*)?$`)

// maxTagRunes is the longest a tag may be.
const maxTagRunes = 40

// SetProjectTags replaces a project's tags (at most 10, each 1 to 40 letters, digits, '.',
// '_', '-' or spaces, or key=value of them), recording the change in the audit log.
func (s *Store) SetProjectTags(ctx context.Context, actor string, projectID int64, tags []string, now time.Time) error {
	after, err := cleanTags(tags)
	if err != nil {
		return err
	}
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var p Project
		if err := forUpdate(tx).Where("id = ?", projectID).Take(&p).Error; err != nil {
			return notFound(fmt.Sprintf("project %d", projectID), err)
		}
		before := p.Tags // Update writes the new tags into p as well
		if err := tx.Model(&p).Update("tags", after).Error; err != nil {
			return err
		}
		return audit(tx, now, actor, AuditProjectTags, &projectID, "project "+p.Name, map[string]string{"tags": before},
			map[string]string{"tags": after})
	})
	if err != nil {
		return fmt.Errorf("models: set tags of project %d: %w", projectID, err)
	}
	return nil
}

// cleanTags checks tags, drops repeats and sorts them, joined by commas as they are stored.
func cleanTags(tags []string) (string, error) {
	clean := make([]string, 0, len(tags))
	for _, t := range tags {
		t = strings.TrimSpace(t)
		if !tagRE.MatchString(t) || utf8.RuneCountInString(t) > maxTagRunes {
			return "", fieldErr("tags", "%q is not a tag: use 1 to 40 letters, digits, '.', '_', '-' or spaces, or key=value of them", truncate(t, 40))
		}
		if !slices.Contains(clean, t) {
			clean = append(clean, t)
		}
	}
	if len(clean) > 10 {
		return "", fieldErr("tags", "at most 10 tags, got %d", len(clean))
	}
	slices.Sort(clean)
	return strings.Join(clean, ","), nil
}
