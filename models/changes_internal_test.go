package models

import (
	"strings"
	"testing"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// TestWriteTarget: the table a raw write statement writes is read from its text; a savepoint
// or a SET writes none; one that names no table it writes is "?", which forgets what any
// table would.
func TestWriteTarget(t *testing.T) {
	for sql, want := range map[string]string{
		"UPDATE nodes SET last_seen_at = v.column2 FROM (VALUES (?,?)) AS v WHERE nodes.id = v.column1": "nodes",
		"INSERT INTO gpu_samples (gpu_id, ts) VALUES (?,?) ON CONFLICT DO NOTHING":                      "gpu_samples",
		`INSERT INTO "pools" ("name") VALUES ($1)`:                                                      "pools",
		"DELETE FROM gpus WHERE node_id = ?":                                                            "gpus",
		"update tasks set state = ? where id in (select task_id from allocations join nodes on true)":   "tasks",
		"SET LOCAL synchronous_commit = off":                                                            "",
		"SAVEPOINT sp123":                                                                               "",
		"RELEASE SAVEPOINT sp123":                                                                       "",
		"ROLLBACK TO SAVEPOINT sp123":                                                                   "",
		"CREATE INDEX idx_x ON nodes (hostname)":                                                        "?",
	} {
		st := &gorm.Statement{DB: &gorm.DB{}, Clauses: map[string]clause.Clause{}}
		st.SQL = strings.Builder{}
		st.SQL.WriteString(sql)
		if got := writeTarget(st); got != want {
			t.Errorf("writeTarget(%q) = %q, want %q", sql, got, want)
		}
	}
}
