package models

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// NoteProjects returns the project each of notes is about, by notification id, as its key
// names it: a task (TaskNoteKey, "idle-notice:<task>:…", "reclaimed:<task>"), a quota request
// ("request:<id>", "decided:<id>"), a quota ("quota-ends:<quota>:…", "budget:<quota>:…") or a
// project itself ("weekly-report:<week>:<project>"). A notification about none is left out.
// A lead or member of several projects tells them apart by it.
func (s *Store) NoteProjects(ctx context.Context, notes []Notification) (map[int64]string, error) {
	refs := map[string]map[int64][]int64{"tasks": {}, "quota_requests": {}, "quotas": {}, "projects": {}} // table → row id → note ids
	for _, n := range notes {
		table, id := noteRef(n.Key)
		if id > 0 {
			refs[table][id] = append(refs[table][id], n.ID)
		}
	}
	out := make(map[int64]string)
	for table, byID := range refs {
		if len(byID) == 0 {
			continue
		}
		ids := make([]int64, 0, len(byID))
		for id := range byID {
			ids = append(ids, id)
		}
		var rows []struct {
			ID      int64
			Project string
		}
		q := s.db.WithContext(ctx).Table(table).Select(table + ".id AS id, projects.name AS project")
		if table != "projects" {
			q = q.Joins("JOIN projects ON projects.id = " + table + ".project_id")
		}
		err := q.Where(table+".id IN ?", ids).Scan(&rows).Error
		if err != nil {
			return nil, fmt.Errorf("models: projects of notifications: %w", err)
		}
		for _, r := range rows {
			for _, note := range byID[r.ID] {
				out[note] = r.Project
			}
		}
	}
	return out, nil
}

// noteRef is the table and row a notification key names; id 0 when it names none.
func noteRef(key string) (table string, id int64) {
	if id := TaskOfNoteKey(key); id > 0 {
		return "tasks", id
	}
	parts := strings.Split(key, ":")
	if len(parts) < 2 {
		return "", 0
	}
	id, _ = strconv.ParseInt(parts[1], 10, 64)
	switch parts[0] {
	case "weekly-report": // weekly-report:<week>:<project>
		if len(parts) > 2 {
			id, _ = strconv.ParseInt(parts[2], 10, 64)
			return "projects", id
		}
	case "idle-notice", "reclaimed":
		return "tasks", id
	case "request", "decided":
		return "quota_requests", id
	case "quota-ends", "budget":
		return "quotas", id
	}
	return "", 0
}
