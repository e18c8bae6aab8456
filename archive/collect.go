package archive

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"

	"kashi/billing"
	"kashi/models"
)

// pageSize is how many records of a kind one pass takes into the outbox.
const pageSize = 200

// Content types of the archived files.
const (
	typeJSON  = "application/json"
	typeLines = "application/x-ndjson"
	typeCSV   = "text/csv; charset=utf-8"
	typeXLSX  = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	typeDB    = "application/vnd.sqlite3"
	typeSQL   = "application/sql"
)

// Collect stores in the outbox the objects of every record the archive does not have yet:
// issued bills (JSON, CSV, XLSX and the ledger lines), template and pool settings versions,
// decided requests, the plans of each day that ended, and the day's backup once it is past
// BackupHour. It returns how many objects it added.
func (a *Archiver) Collect(ctx context.Context, now time.Time) (int, error) {
	total := 0
	for _, kind := range []struct {
		name    string
		collect func(context.Context, time.Time) ([]models.ArchiveUpload, error)
	}{{models.ArchiveBills, a.bills}, {models.ArchiveTemplates, a.templates}, {models.ArchivePools, a.pools},
		{models.ArchiveApprovals, a.approvals}, {models.ArchivePlans, a.plans}, {models.ArchiveBackups, a.backups}} {
		ups, err := kind.collect(ctx, now)
		if err != nil {
			return total, fmt.Errorf("archive: collect %s: %w", kind.name, err)
		}
		n, err := a.db.EnqueueArchive(ctx, ups, now)
		if err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}

// upload is an outbox entry of body under key.
func upload(kind, key string, id int64, at time.Time, body []byte, contentType string) models.ArchiveUpload {
	sum := sha256.Sum256(body)
	return models.ArchiveUpload{Kind: kind, Key: key, SourceID: id, SourceAt: at, Body: body,
		SHA256: hex.EncodeToString(sum[:]), ContentType: contentType}
}

// folder is kind's folder of the month of at, in loc: kind/yyyy/mm.
func folder(kind string, at time.Time, loc *time.Location) string {
	return kind + "/" + at.In(loc).Format("2006/01")
}

// safe is name as a key's part: letters, digits and ".-_" kept, anything else "_".
func safe(name string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, name)
}

// BillKey is the key (below the prefix) of an issued bill's file of extension ext ("json",
// "csv", "xlsx"), under the bill's own month: bills/yyyy/mm/<project>-<yyyy-mm>-b<id>.ext.
func BillKey(project string, ib models.IssuedBill, ext string) string {
	return models.ArchiveBills + "/" + strings.ReplaceAll(ib.Month, "-", "/") + "/" + safe(project) + "-" + ib.Month +
		fmt.Sprintf("-b%d.%s", ib.ID, ext)
}

// bills are the files of the bills issued since the last archived: the frozen body as
// JSON (its SHA-256 is the one recorded at issue), the CSV and XLSX a download gives, and
// the bill's lines as JSON lines under ledger/.
func (a *Archiver) bills(ctx context.Context, _ time.Time) ([]models.ArchiveUpload, error) {
	after, _, err := a.db.ArchiveMark(ctx, models.ArchiveBills)
	if err != nil {
		return nil, err
	}
	ibs, err := a.db.IssuedBillsAfter(ctx, after, pageSize/4)
	if err != nil {
		return nil, err
	}
	names, err := a.db.ProjectNames(ctx)
	if err != nil {
		return nil, err
	}
	var out []models.ArchiveUpload
	for _, ib := range ibs {
		b, err := billing.Frozen(ib)
		if err != nil {
			return nil, err
		}
		project := names[ib.ProjectID]
		var csv, xlsx, lines bytes.Buffer
		if err := billing.WriteCSV(&csv, []billing.Bill{b}); err != nil {
			return nil, err
		}
		if err := billing.WriteXLSX(&xlsx, []billing.Bill{b}, billing.EnglishSheets); err != nil {
			return nil, err
		}
		enc := json.NewEncoder(&lines)
		for _, l := range b.Lines {
			if err := enc.Encode(ledgerLine{Project: project, Month: ib.Month, Bill: ib.ID, Line: l}); err != nil {
				return nil, err
			}
		}
		ledger := models.ArchiveLedger + strings.TrimPrefix(BillKey(project, ib, "jsonl"), models.ArchiveBills)
		out = append(out,
			upload(models.ArchiveBills, BillKey(project, ib, "json"), ib.ID, ib.IssuedAt, []byte(ib.Body), typeJSON),
			upload(models.ArchiveBills, BillKey(project, ib, "csv"), ib.ID, ib.IssuedAt, csv.Bytes(), typeCSV),
			upload(models.ArchiveBills, BillKey(project, ib, "xlsx"), ib.ID, ib.IssuedAt, xlsx.Bytes(), typeXLSX),
			upload(models.ArchiveLedger, ledger, ib.ID, ib.IssuedAt, lines.Bytes(), typeLines))
	}
	return out, nil
}

// ledgerLine is one line of a bill in the ledger's file: the bill's line with its project,
// month and bill.
type ledgerLine struct {
	Project string `json:"project"`
	Month   string `json:"month"`
	Bill    int64  `json:"bill_id"`
	billing.Line
}

// templates are the template versions since the last archived: who made each, when, the
// body it set and what changed.
func (a *Archiver) templates(ctx context.Context, _ time.Time) ([]models.ArchiveUpload, error) {
	after, _, err := a.db.ArchiveMark(ctx, models.ArchiveTemplates)
	if err != nil {
		return nil, err
	}
	vs, err := a.db.TemplateVersionsAfter(ctx, after, pageSize)
	if err != nil {
		return nil, err
	}
	out := make([]models.ArchiveUpload, 0, len(vs))
	for _, v := range vs {
		body, err := json.MarshalIndent(templateVersion{Project: v.Project, Template: v.Template, Version: v.Version,
			By: v.By, At: v.At.UTC(), Description: v.Description, Body: raw(v.Body), Changes: raw(v.Diff), Restores: v.Restores}, "", "  ")
		if err != nil {
			return nil, err
		}
		key := fmt.Sprintf("%s/%s-%s-v%d-%d.json", folder(models.ArchiveTemplates, v.At, a.loc), safe(v.Project), safe(v.Template), v.Version, v.ID)
		out = append(out, upload(models.ArchiveTemplates, key, v.ID, v.At, body, typeJSON))
	}
	return out, nil
}

// templateVersion is a template version's file.
type templateVersion struct {
	Project     string          `json:"project"`
	Template    string          `json:"template"`
	Version     int             `json:"version"`
	By          string          `json:"by"`
	At          time.Time       `json:"at"`
	Description string          `json:"description"`
	Body        json.RawMessage `json:"body"`
	Changes     json.RawMessage `json:"changes"`
	Restores    int             `json:"restores,omitempty"`
}

// raw is stored JSON as it is, or null when empty.
func raw(s string) json.RawMessage {
	if s == "" || !json.Valid([]byte(s)) {
		return json.RawMessage("null")
	}
	return json.RawMessage(s)
}

// pools are the pool settings versions since the last archived.
func (a *Archiver) pools(ctx context.Context, _ time.Time) ([]models.ArchiveUpload, error) {
	after, _, err := a.db.ArchiveMark(ctx, models.ArchivePools)
	if err != nil {
		return nil, err
	}
	vs, err := a.db.PoolVersionsAfter(ctx, after, pageSize)
	if err != nil {
		return nil, err
	}
	out := make([]models.ArchiveUpload, 0, len(vs))
	for _, v := range vs {
		body, err := json.MarshalIndent(poolVersion{Pool: v.Pool, Version: v.Version, At: v.At.UTC(), By: v.By, Note: v.Note,
			Before: raw(v.Before), After: raw(v.After)}, "", "  ")
		if err != nil {
			return nil, err
		}
		key := fmt.Sprintf("%s/%s-v%d-%d.json", folder(models.ArchivePools, v.At, a.loc), safe(v.Pool), v.Version, v.ID)
		out = append(out, upload(models.ArchivePools, key, v.ID, v.At, body, typeJSON))
	}
	return out, nil
}

// poolVersion is a pool settings version's file.
type poolVersion struct {
	Pool    string          `json:"pool"`
	Version int             `json:"version"`
	At      time.Time       `json:"at"`
	By      string          `json:"by"`
	Note    string          `json:"note"`
	Before  json.RawMessage `json:"before"`
	After   json.RawMessage `json:"after"`
}

// approvals are the requests decided since the last archived decision (that one again:
// its key is in the outbox already, so it is not added twice).
func (a *Archiver) approvals(ctx context.Context, _ time.Time) ([]models.ArchiveUpload, error) {
	_, since, err := a.db.ArchiveMark(ctx, models.ArchiveApprovals)
	if err != nil {
		return nil, err
	}
	ds, err := a.db.DecisionsSince(ctx, since, pageSize)
	if err != nil {
		return nil, err
	}
	out := make([]models.ArchiveUpload, 0, len(ds))
	for _, d := range ds {
		body, err := json.MarshalIndent(decision{ID: d.ID, Project: d.Project, Spec: d.Spec, Kind: d.Kind, Change: raw(d.Change),
			Reason: d.Reason, RequestedBy: d.Requester, RequestedAt: d.CreatedAt.UTC(), State: d.State, DecidedBy: d.Decider,
			DecidedAt: d.DecidedAt.UTC(), Comment: d.Comment}, "", "  ")
		if err != nil {
			return nil, err
		}
		key := fmt.Sprintf("%s/%s-request-%d.json", folder(models.ArchiveApprovals, *d.DecidedAt, a.loc), safe(d.Project), d.ID)
		out = append(out, upload(models.ArchiveApprovals, key, d.ID, *d.DecidedAt, body, typeJSON))
	}
	return out, nil
}

// decision is a decided request's file.
type decision struct {
	ID          int64           `json:"id"`
	Project     string          `json:"project"`
	Spec        string          `json:"spec"`
	Kind        string          `json:"kind"`
	Change      json.RawMessage `json:"change"`
	Reason      string          `json:"reason"`
	RequestedBy string          `json:"requested_by"`
	RequestedAt time.Time       `json:"requested_at"`
	State       string          `json:"state"`
	DecidedBy   string          `json:"decided_by"`
	DecidedAt   time.Time       `json:"decided_at"`
	Comment     string          `json:"comment"`
}

// planMargin is how long after a day ends its plans are written: a task whose node went
// silent is ended at the node's last moment, some minutes later.
const planMargin = time.Hour

// maxPlanDays bounds the days one pass writes (a first pass over a long history).
const maxPlanDays = 31

// plans are, for each day (in loc) that ended since the last one archived, the tasks that
// ended that day, one JSON line each: what each asked for and what it took.
func (a *Archiver) plans(ctx context.Context, now time.Time) ([]models.ArchiveUpload, error) {
	last, _, err := a.db.ArchiveMark(ctx, models.ArchivePlans)
	if err != nil {
		return nil, err
	}
	var day time.Time
	if last == 0 {
		first, err := a.db.FirstTaskEnd(ctx)
		if err != nil || first.IsZero() {
			return nil, err
		}
		day = dayOf(first, a.loc)
	} else {
		day = dayOfID(last, a.loc).AddDate(0, 0, 1)
	}
	var out []models.ArchiveUpload
	for i := 0; i < maxPlanDays && !day.AddDate(0, 0, 1).Add(planMargin).After(now); i++ {
		next := day.AddDate(0, 0, 1)
		tasks, err := a.db.TaskPlansEnded(ctx, day, next)
		if err != nil {
			return nil, err
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		for _, t := range tasks {
			if err := enc.Encode(planOf(t)); err != nil {
				return nil, err
			}
		}
		key := fmt.Sprintf("%s/plans-%s.jsonl", folder(models.ArchivePlans, day, a.loc), day.Format(time.DateOnly))
		out = append(out, upload(models.ArchivePlans, key, idOfDay(day), day, b.Bytes(), typeLines))
		day = next
	}
	return out, nil
}

// plan is a task's line in a day's plans.
type plan struct {
	TaskID         int64      `json:"task_id"`
	Project        string     `json:"project"`
	Name           string     `json:"name"`
	Owner          string     `json:"owner"`
	GPUs           int        `json:"gpus"`
	Spec           string     `json:"spec"`
	Queue          string     `json:"queue"`
	Priority       string     `json:"priority"`
	EstGPUHours    float64    `json:"est_gpu_hours"`
	MaxRuntimeS    int64      `json:"max_runtime_s"`
	SubmittedAt    time.Time  `json:"submitted_at"`
	StartedAt      *time.Time `json:"started_at"`
	EndedAt        *time.Time `json:"ended_at"`
	State          string     `json:"state"`
	ActualGPUHours float64    `json:"actual_gpu_hours"`
	CardSeconds    int64      `json:"card_seconds"`
}

func planOf(t models.TaskPlan) plan {
	p := plan{TaskID: t.ID, Project: t.Project, Name: t.Name, Owner: t.Owner, GPUs: t.GPUs, Spec: t.Spec, Queue: t.Queue,
		Priority: t.Priority, EstGPUHours: t.EstGPUHours, MaxRuntimeS: t.MaxRuntimeS, SubmittedAt: t.SubmittedAt.UTC(),
		StartedAt: utc(t.StartedAt), EndedAt: utc(t.EndedAt), State: t.State, CardSeconds: t.CardSeconds,
		ActualGPUHours: float64(t.CardSeconds) / 3600}
	return p
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// dayOf is the start of at's day in loc.
func dayOf(at time.Time, loc *time.Location) time.Time {
	y, m, d := at.In(loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, loc)
}

// idOfDay is a day as yyyymmdd, a day's source id in the outbox.
func idOfDay(day time.Time) int64 {
	y, m, d := day.Date()
	return int64(y*10000 + int(m)*100 + d)
}

// dayOfID is the day of yyyymmdd in loc.
func dayOfID(id int64, loc *time.Location) time.Time {
	return time.Date(int(id/10000), time.Month(id/100%100), int(id%100), 0, 0, 0, 0, loc)
}
