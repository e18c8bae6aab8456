package models

import (
	"strings"
	"testing"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// TestWriteTarget: the table a raw write statement writes is read from its text; one that
// names none is "?", which forgets what any table would.
func TestWriteTarget(t *testing.T) {
	for sql, want := range map[string]string{
		"UPDATE nodes SET last_seen_at = v.column2 FROM (VALUES (?,?)) AS v WHERE nodes.id = v.column1": "nodes",
		"INSERT INTO gpu_samples (gpu_id, ts) VALUES (?,?) ON CONFLICT DO NOTHING":                      "gpu_samples",
		`INSERT INTO "pools" ("name") VALUES ($1)`:                                                      "pools",
		"DELETE FROM gpus WHERE node_id = ?":                                                            "gpus",
		"update tasks set state = ? where id in (select task_id from allocations join nodes on true)":   "tasks",
		"SET LOCAL synchronous_commit = off":                                                            "?",
	} {
		st := &gorm.Statement{DB: &gorm.DB{}, Clauses: map[string]clause.Clause{}}
		st.SQL = strings.Builder{}
		st.SQL.WriteString(sql)
		if got := writeTarget(st); got != want {
			t.Errorf("writeTarget(%q) = %q, want %q", sql, got, want)
		}
	}
}
