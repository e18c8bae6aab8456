package billing

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strings"
	"testing"

	"kashi/phrase"
)

// TestHeaderWords: the downloads name a task's owner in the catalogs' words for it (提交人,
// Owner) over the column that holds the owner, and no header uses the catalogs' word for a
// project's lead (负责人, lead), which is another person. Bill CSV, the workbook's Lines and
// Idle sheets and the weekly report's CSV (its workbook has the same header) are read back
// as written.
func TestHeaderWords(t *testing.T) {
	zh, en := phrase.Negotiate("zh-CN", ""), phrase.Negotiate("en", "")
	owner := zh.T("queue.col.owner") + " " + en.T("queue.col.owner")
	if zh.T("form.owner") != zh.T("queue.col.owner") || en.T("form.owner") != en.T("queue.col.owner") {
		t.Fatalf("the catalogs name a task's owner two ways: %q/%q and %q/%q", zh.T("form.owner"), en.T("form.owner"),
			zh.T("queue.col.owner"), en.T("queue.col.owner"))
	}
	// The lead's word is the role's name without the word for project ("项目负责人" →
	// "负责人", "project lead" → "lead").
	leadZH := strings.TrimPrefix(zh.T("role.lead"), zh.T("queue.col.project"))
	leadEN := strings.TrimSpace(strings.TrimPrefix(strings.ToLower(en.T("role.lead")), strings.ToLower(en.T("queue.col.project"))))
	if leadZH == zh.T("role.lead") || leadEN == "" || leadZH == "" {
		t.Fatalf("lead words %q, %q: the catalogs' role.lead no longer starts with the word for project", leadZH, leadEN)
	}

	const who = "owner-ana"
	b := goldenBill(t)
	for i := range b.Lines {
		b.Lines[i].Owner = who
	}
	for i := range b.Idle {
		b.Idle[i].Owner = who
	}
	r := Report{Week: "2026-W10", TopIdle: []IdleTask{{TaskID: 1, Task: "t", Project: "alpha", Owner: who, Spec: a100}}}
	var reportCSV bytes.Buffer
	if err := WriteReportCSV(&reportCSV, r); err != nil {
		t.Fatal(err)
	}
	reportRows, err := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(reportCSV.Bytes(), []byte("\uFEFF")))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	downloads := map[string][][]string{
		"bill CSV":     readCSV(t, []Bill{b}),
		"Lines sheet":  readSheet(t, []Bill{b}, SheetLines),
		"Idle sheet":   readSheet(t, []Bill{b}, SheetIdle),
		"Summary":      readSheet(t, []Bill{b}, SheetSummary),
		"Models sheet": readSheet(t, []Bill{b}, SheetModels),
		"report CSV":   reportRows,
	}
	for name, rows := range downloads {
		header := rows[0]
		for _, h := range header {
			if strings.Contains(h, leadZH) || slices.Contains(strings.Fields(strings.ToLower(h)), leadEN) {
				t.Errorf("%s: header %q uses the word for a project's lead (%s, %s)", name, h, leadZH, leadEN)
			}
		}
		if name == "Summary" || name == "Models sheet" {
			continue // no task's owner there
		}
		col := -1
		for _, row := range rows[1:] {
			if i := slices.Index(row, who); i >= 0 {
				col = i
				break
			}
		}
		if col < 0 {
			t.Errorf("%s: no column holds the task's owner", name)
			continue
		}
		if header[col] != owner {
			t.Errorf("%s: the owner's column is headed %q, want the catalogs' %q", name, header[col], owner)
		}
	}
}
