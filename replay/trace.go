package replay

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"kashi/models"
)

// Job is one usable row of a trace. Times are seconds on the trace's clock (numbers as
// written, or Unix seconds for RFC 3339 timestamps).
type Job struct {
	ID string
	// Row is the job's data row, 1-based, in file order: ties of Submit keep it.
	Row      int
	Submit   int64
	Duration int64
	GPUs     int
	// Group becomes the task's project; Spec the asked GPU spec ("" = any).
	Group string
	Spec  string
	// Est and MaxRuntime are what the task declared of its runtime, in seconds (0: nothing),
	// Queue the lane it was submitted to ("" = by its max runtime) and Priority its priority
	// ("" = normal); EstimatesDeclared replays them.
	Est, MaxRuntime int64
	Queue, Priority string
	// Pipe is the job's place in a pipeline; nil outside one (and for every job of a trace
	// without stage and parent columns, so that such a trace's jobs stay as small).
	Pipe *Pipe
}

// Pipe is a job's place in a pipeline. Stage names its stage (empty: none). Parent lists
// the job_ids it runs after, separated by ';' (empty: none): the replay submits it only once
// each has succeeded, at its submit_ts or then, whichever is later. Failed says its status
// was an unsuccessful end (failed, cancelled, timed out, reclaimed, killed): it still runs
// for its duration, and then its children are skipped.
type Pipe struct {
	Stage, Parent string
	Failed        bool
}

// parent is the job's parents' ids, separated by ';'; empty for none.
func (j *Job) parent() string {
	if j.Pipe == nil {
		return ""
	}
	return j.Pipe.Parent
}

// Trace is a parsed trace: its jobs in order of (Submit, Row) and the rows skipped, by
// cause.
type Trace struct {
	Jobs    []Job
	Skipped map[string]int
}

// Causes of a skipped row.
const (
	SkipNoGPUs           = "no_gpus"           // gpus below 1
	SkipNegativeDuration = "negative_duration" // duration_s < 0, or end_ts before start_ts
	SkipUnparsable       = "unparsable"        // a required field empty or not a number or time
	SkipBadCSV           = "bad_csv"           // an unclosed quote or text after a closing quote
	SkipLongLine         = "long_line"         // a line over MaxLine bytes
	// Run adds two causes: SkipLargerThanFleet, SkipUnknownSpec.
)

// DuplicateIDError is a trace that gives two jobs one job_id: each job is replayed once,
// so Read refuses it rather than replay the job twice or guess which row is meant. Lines
// are the file's, 1-based.
type DuplicateIDError struct {
	ID          string
	Line, First int
}

func (e *DuplicateIDError) Error() string {
	return fmt.Sprintf("replay: line %d repeats job_id %q of line %d: each job needs its own id", e.Line, e.ID, e.First)
}

// DefaultMaxJobs is Read's job limit when ReadOptions.MaxJobs is zero.
const DefaultMaxJobs = 2_000_000

// ReadOptions tunes Read.
type ReadOptions struct {
	// MaxJobs caps the jobs held in memory; a trace with more is an error. Zero means
	// DefaultMaxJobs.
	MaxJobs int
}

// Trace columns. Extra columns are ignored; user is accepted and unused (the scheduler has
// no per-user rule); status does not change a job's runtime, only whether its children run.
const (
	colID         = "job_id"
	colSubmit     = "submit_ts"
	colGPUs       = "gpus"
	colDuration   = "duration_s"
	colStart      = "start_ts"
	colEnd        = "end_ts"
	colGroup      = "group"
	colSpec       = "spec"
	colEst        = "est_s"
	colMaxRuntime = "max_runtime_s"
	colQueue      = "queue"
	colPriority   = "priority"
	colStage      = "stage"
	colParent     = "parent"
	colStatus     = "status"
)

// columns are the positions of the known columns in a header; -1 when absent.
type columns struct {
	id, submit, gpus, duration, start, end, group, spec, est, maxRuntime, queue, priority int
	stage, parent, status                                                                 int
}

// parseHeader finds the columns, or says which required ones are missing.
func parseHeader(line []byte) (columns, error) {
	if !utf8.Valid(line) || bytes.IndexByte(line, 0) >= 0 {
		return columns{}, errors.New("replay: the trace is not CSV text (its first line is binary)")
	}
	line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
	fields, ok := splitCSV(nil, line)
	if !ok {
		return columns{}, errors.New("replay: the trace's header is not a CSV line (unbalanced quotes)")
	}
	c := columns{-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1}
	at := map[string]*int{colID: &c.id, colSubmit: &c.submit, colGPUs: &c.gpus, colDuration: &c.duration,
		colStart: &c.start, colEnd: &c.end, colGroup: &c.group, colSpec: &c.spec, colEst: &c.est,
		colMaxRuntime: &c.maxRuntime, colQueue: &c.queue, colPriority: &c.priority,
		colStage: &c.stage, colParent: &c.parent, colStatus: &c.status}
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = strings.ToLower(strings.TrimSpace(string(f)))
		if p, ok := at[names[i]]; ok && *p < 0 {
			*p = i
		}
	}
	var missing []string
	for _, req := range []struct {
		name string
		pos  int
	}{{colID, c.id}, {colSubmit, c.submit}, {colGPUs, c.gpus}} {
		if req.pos < 0 {
			missing = append(missing, req.name)
		}
	}
	if c.duration < 0 && (c.start < 0 || c.end < 0) {
		missing = append(missing, "duration_s (or start_ts and end_ts)")
	}
	if len(missing) > 0 {
		found := strings.Join(names, ", ")
		if len(found) > 200 {
			found = found[:200] + "…"
		}
		return columns{}, fmt.Errorf("replay: the trace's header lacks required columns %s (it has: %s)",
			strings.Join(missing, ", "), found)
	}
	return c, nil
}

// Read parses a trace: a CSV header naming job_id, submit_ts, gpus and either duration_s or
// both start_ts and end_ts (duration = end − start), optionally group, spec and what the
// task declared (est_s, max_runtime_s: seconds, empty for nothing; queue: short or long;
// priority: urgent, high, normal or low) and pipelines (stage: the stage's name; parent:
// the job_ids it runs after, separated by ';'; status: an unsuccessful end such as failed
// skips its children, see Job), then one job per line. It streams: memory grows with the jobs kept, not with the file. Rows with no
// GPUs, a negative duration, an empty or unparsable required field, broken quoting or an
// over-long line are skipped and counted; blank lines are ignored. A file that is not CSV
// text, lacks a required column, has no job row at all, or has more than MaxJobs jobs is an
// error, and so is a job_id that two usable rows share (a *DuplicateIDError). Fractional
// seconds, in numbers and in RFC 3339 times, are rounded to the nearest second, halves
// away from zero.
func Read(r io.Reader, opt ReadOptions) (*Trace, error) {
	maxJobs := opt.MaxJobs
	if maxJobs <= 0 {
		maxJobs = DefaultMaxJobs
	}
	lr := newLineReader(r)
	var header []byte
	for {
		line, err := lr.next()
		switch {
		case err == io.EOF:
			return nil, errors.New("replay: the trace is empty")
		case errors.Is(err, errLongLine):
			return nil, fmt.Errorf("replay: the trace's first line is longer than %d bytes: not a CSV trace", MaxLine)
		case err != nil:
			return nil, fmt.Errorf("replay: read trace: %w", err)
		}
		if len(bytes.TrimSpace(line)) > 0 {
			header = line
			break
		}
	}
	cols, err := parseHeader(header)
	if err != nil {
		return nil, err
	}
	tr := &Trace{Skipped: map[string]int{}}
	p := rowParser{cols: cols, strs: map[string]string{}}
	lines := map[string]int{} // the line of each job's id
	rows := 0
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if errors.Is(err, errLongLine) {
			rows++
			tr.Skipped[SkipLongLine]++
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("replay: read trace line %d: %w", lr.line, err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		rows++
		j, cause := p.parse(line)
		if cause != "" {
			tr.Skipped[cause]++
			continue
		}
		if len(tr.Jobs) == maxJobs {
			return nil, fmt.Errorf("replay: the trace has more than %d jobs (the limit; raise it with --max-jobs)", maxJobs)
		}
		if first, ok := lines[j.ID]; ok {
			return nil, &DuplicateIDError{ID: j.ID, Line: lr.line, First: first}
		}
		lines[j.ID] = lr.line
		j.Row = rows
		tr.Jobs = append(tr.Jobs, j)
	}
	if rows == 0 {
		return nil, errors.New("replay: the trace has a header but no job rows")
	}
	slices.SortStableFunc(tr.Jobs, func(a, b Job) int { return cmp.Compare(a.Submit, b.Submit) })
	return tr, nil
}

// rowParser turns data lines into jobs, reusing its buffers.
type rowParser struct {
	cols   columns
	fields [][]byte
	// strs interns group and spec names, which repeat.
	strs map[string]string
}

// maxInterned bounds the interned names; past it, names are kept per job.
const maxInterned = 100_000

func (p *rowParser) intern(b []byte) string {
	if s, ok := p.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	if len(p.strs) < maxInterned {
		p.strs[s] = s
	}
	return s
}

// parse reads one row; cause is non-empty when it is skipped.
func (p *rowParser) parse(line []byte) (Job, string) {
	var ok bool
	p.fields, ok = splitCSV(p.fields[:0], line)
	if !ok {
		return Job{}, SkipBadCSV
	}
	field := func(i int) []byte {
		if i < 0 || i >= len(p.fields) {
			return nil
		}
		return bytes.TrimSpace(p.fields[i])
	}
	c := p.cols
	id := field(c.id)
	submit, ok1 := parseTime(field(c.submit))
	gpus, ok2 := parseInt(field(c.gpus))
	if len(id) == 0 || !ok1 || !ok2 {
		return Job{}, SkipUnparsable
	}
	var dur int64
	if d := field(c.duration); len(d) > 0 || c.start < 0 {
		v, ok := parseTime(d)
		if !ok {
			return Job{}, SkipUnparsable
		}
		dur = v
	} else {
		start, ok1 := parseTime(field(c.start))
		end, ok2 := parseTime(field(c.end))
		if !ok1 || !ok2 {
			return Job{}, SkipUnparsable
		}
		dur = end - start
	}
	var declared [2]int64
	for k, col := range []int{c.est, c.maxRuntime} {
		if b := field(col); len(b) > 0 {
			v, ok := parseTime(b)
			if !ok || v < 0 {
				return Job{}, SkipUnparsable
			}
			declared[k] = v
		}
	}
	queue, prio := p.intern(field(c.queue)), p.intern(field(c.priority))
	switch {
	case gpus < 1:
		return Job{}, SkipNoGPUs
	case dur < 0:
		return Job{}, SkipNegativeDuration
	case queue != "" && queue != models.QueueShort && queue != models.QueueLong,
		prio != "" && !slices.Contains(models.Priorities, prio):
		return Job{}, SkipUnparsable
	}
	j := Job{ID: string(id), Submit: submit, Duration: dur, GPUs: int(gpus),
		Group: p.intern(field(c.group)), Spec: p.intern(field(c.spec)), Est: declared[0], MaxRuntime: declared[1],
		Queue: queue, Priority: prio}
	if c.stage >= 0 || c.parent >= 0 {
		var pipe Pipe
		if b := field(c.parent); len(b) > 0 {
			var ok bool
			if pipe.Parent, ok = parentIDs(b); !ok {
				return Job{}, SkipUnparsable
			}
		}
		// Whether a job failed matters only to a trace with parents.
		pipe.Stage, pipe.Failed = p.intern(field(c.stage)), c.parent >= 0 && failedStatus(field(c.status))
		if pipe != (Pipe{}) {
			j.Pipe = &pipe
		}
	}
	return j, ""
}

// parentIDs reads a parent field: job_ids separated by ';', each trimmed, none empty,
// joined again by ';'.
func parentIDs(b []byte) (string, bool) {
	ids := strings.Split(string(b), ";")
	for i, id := range ids {
		if ids[i] = strings.TrimSpace(id); ids[i] == "" {
			return "", false
		}
	}
	return strings.Join(ids, ";"), true
}

// failedStatus reports whether a status names an unsuccessful end (any case; '_' or ' '
// for '-'), without allocating.
func failedStatus(b []byte) bool {
	for _, f := range failedStatuses {
		if len(b) == len(f) && sameStatus(b, f) {
			return true
		}
	}
	return false
}

// failedStatuses are the statuses of an unsuccessful end, lower case.
var failedStatuses = []string{"failed", "fail", "error", "cancelled", "canceled", "timed-out", "timeout", "reclaimed", "killed"}

// sameStatus compares b with the lower-case f, ignoring case and reading '_' or ' ' as '-'.
func sameStatus(b []byte, f string) bool {
	for i, c := range b {
		switch {
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
		case c == '_' || c == ' ':
			c = '-'
		}
		if c != f[i] {
			return false
		}
	}
	return true
}
